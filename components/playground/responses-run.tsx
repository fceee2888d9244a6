"use client";
// The right side of the Responses panel: what a run has shown so far (its state and elapsed time, the images, the
// text, the timeline of events and, when it completes, the tokens and cost), or an empty state before the first run.
import { useEffect, useRef } from "react";
import { Alert, Badge, Card, EmptyState, Group, Loader, ScrollArea, SimpleGrid, Text, ThemeIcon, Timeline, Title } from "@mantine/core";
import { IconCheck, IconCircleDot, IconHeartbeat, IconPhoto, IconSparkles, IconTimeline, IconX } from "@tabler/icons-react";
import { count } from "@/lib/portal/format";
import { formatSeconds } from "@/lib/portal/playground";
import type { ModelSource } from "@/lib/portal/server";
import { CostLine, ImageCard, SourceBadge } from "./shared";
import type { Entry, ResponsesStream } from "./use-responses-stream";

function bullet(entry: Entry) {
  return entry.type === "keepalive" ? (
    <IconHeartbeat size={12} />
  ) : entry.type === "response.image_generation_call.partial_image" ? (
    <IconPhoto size={12} />
  ) : entry.color === "red" ? (
    <IconX size={12} />
  ) : entry.type === "response.completed" ? (
    <IconCheck size={12} />
  ) : (
    <IconCircleDot size={12} />
  );
}

function EventTimeline({ entries }: { entries: Entry[] }) {
  const viewport = useRef<HTMLDivElement>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll to the end whenever an entry is added or grows
  useEffect(() => {
    viewport.current?.scrollTo({ top: viewport.current.scrollHeight, behavior: "smooth" });
  }, [entries]);

  return (
    <ScrollArea.Autosize mah={300} viewportRef={viewport} type="auto" offsetScrollbars>
      <Timeline bulletSize={22} lineWidth={2} active={entries.length} data-testid="event-timeline">
        {entries.map((entry) => (
          <Timeline.Item
            key={entry.key}
            bullet={bullet(entry)}
            color={entry.color ?? (entry.type === "keepalive" ? "gray" : "indigo")}
            title={
              <Group gap={8} justify="space-between" wrap="nowrap">
                <Text size="sm" fw={500} data-testid="event-title">
                  {entry.title}
                  {entry.heartbeats && entry.heartbeats > 1 ? ` ×${entry.heartbeats}` : ""}
                </Text>
                <Text size="xs" c="dimmed" ff="monospace">
                  {entry.type === "keepalive" ? `still working · ${formatSeconds(entry.atMs)}` : `+${formatSeconds(entry.atMs)}`}
                </Text>
              </Group>
            }
          >
            {entry.detail ? (
              <Text size="xs" c="dimmed" lineClamp={3}>
                {entry.detail}
              </Text>
            ) : null}
          </Timeline.Item>
        ))}
      </Timeline>
    </ScrollArea.Autosize>
  );
}

export function ResponsesRun({ run, source }: { run: ResponsesStream; source: ModelSource | undefined }) {
  const { state, images, text, entries, summary, elapsed } = run;
  const running = state === "running";
  if (state === "idle")
    return (
      <Card withBorder radius="lg" py={56}>
        <EmptyState
          icon={<IconTimeline size={28} />}
          variant="light"
          title="Events appear here live"
          description="Created, generating, heartbeats during long generations, each image as it arrives, the revised prompt and the cost."
        />
      </Card>
    );
  return (
    <Card withBorder radius="lg" padding="lg">
      <Group justify="space-between" mb="md">
        <Group gap="sm">
          <Title order={2} fz="lg">
            Run
          </Title>
          <SourceBadge source={source} />
        </Group>
        <Group gap="xs">
          {running ? <Loader size="xs" /> : null}
          <Badge
            variant="light"
            color={state === "done" ? "teal" : state === "failed" ? "red" : state === "stopped" ? "gray" : "indigo"}
            data-testid="run-state"
          >
            {state === "running" ? "streaming" : state}
          </Badge>
          <Badge variant="default" data-testid="run-elapsed">
            {formatSeconds(elapsed)}
          </Badge>
        </Group>
      </Group>
      <SimpleGrid cols={{ base: 1, sm: images.length > 1 ? 2 : 1 }} spacing="md" mb={images.length ? "md" : 0}>
        {images.map((image) => (
          <ImageCard key={image.key} image={image} source={source}>
            {image.preview ? (
              <Badge variant="light" color="orange" data-testid="preview-badge">
                {image.preview}
              </Badge>
            ) : null}
          </ImageCard>
        ))}
      </SimpleGrid>
      {running && images.length === 0 ? (
        <Alert variant="light" color="indigo" icon={<IconSparkles size={18} />} mb="md">
          Working on it. One image usually takes 13 to 20 seconds; complex prompts up to two minutes.
        </Alert>
      ) : null}
      {text ? (
        <Text size="sm" mb="md" style={{ whiteSpace: "pre-wrap" }}>
          {text}
        </Text>
      ) : null}
      <EventTimeline entries={entries} />
      {summary ? (
        <Card withBorder radius="md" mt="md" padding="sm" bg="var(--mantine-color-default-hover)">
          <Group justify="space-between" wrap="wrap" gap="xs">
            <Group gap="xs" wrap="wrap">
              <ThemeIcon size="sm" variant="light" color="teal">
                <IconCheck size={14} />
              </ThemeIcon>
              <Text size="sm">
                Text model: {count(summary.textInput)} in / {count(summary.textOutput)} out · image tool: {count(summary.imageOutput)}{" "}
                tokens
              </Text>
            </Group>
            <CostLine cost={summary.cost} pending={summary.cost === undefined} />
          </Group>
        </Card>
      ) : null}
    </Card>
  );
}
