"use client";
// Image generation: POST /v1/images/generations (through the session or a pasted key; Stop cuts it, and the time
// runs while it is made); the image is shown as it came back
// (data[0].b64_json), with its size, quality, format, tokens, latency and the cost read from the ledger.
// Not a useApiForm: the request goes through the playground's `send` (session or pasted key, with Stop), its answer
// is an image rather than a JSON reply to `api`, and its fields build the snippets as they are typed.
import { useState } from "react";
import { Button, Card, EmptyState, Grid, Stack, Text, Textarea, Title } from "@mantine/core";
import { IconPhoto, IconSparkles } from "@tabler/icons-react";
import { errorFrom, fieldMessage, type ApiError } from "@/lib/portal/api";
import { useBaseUrl } from "@/components/base-url";
import { DEFAULT_IMAGE_SETTINGS, imagesBody, type ImageSettings } from "@/lib/portal/playground";
import { buildSnippets } from "@/lib/portal/snippets";
import type { ModelSource } from "@/lib/portal/server";
import { ImageControls, sizeProblem } from "./image-controls";
import { SnippetCard } from "./snippet-card";
import {
  CostLine,
  ImageCard,
  PendingResult,
  RunError,
  RunningLine,
  useImageResults,
  useResultsInView,
  useRun,
  wasStopped,
  type ImageAnswer,
  type SendRequest,
} from "./shared";

const FIELD_PARAMS = ["prompt", "size", "quality", "output_format", "output_compression", "moderation"];

export function ImagesPanel({
  model,
  source,
  send,
  onKeyRejected,
}: {
  model: string;
  source: ModelSource | undefined;
  send: SendRequest;
  onKeyRejected: () => void;
}) {
  const [prompt, setPrompt] = useState("A lighthouse on a rocky coast at sunset, watercolor");
  const [settings, setSettings] = useState<ImageSettings>(DEFAULT_IMAGE_SETTINGS);
  const run_ = useRun();
  const running = run_.running;
  const [stopped, setStopped] = useState(false);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const { results, add } = useImageResults(model);
  const resultsView = useResultsInView();

  const body = imagesBody(model, prompt, { ...settings, size: settings.size.trim() });
  const origin = useBaseUrl();
  const invalid = Boolean(sizeProblem(settings.size)) || !prompt.trim();

  async function run(event: { preventDefault(): void }) {
    event.preventDefault();
    if (invalid) {
      if (!prompt.trim()) setFieldErrors({ prompt: "Describe the image to generate" });
      return;
    }
    const signal = run_.start();
    resultsView.bring();
    setStopped(false);
    setError(null);
    setFieldErrors({});
    const started = performance.now();
    try {
      const response = await send("/v1/images/generations", JSON.stringify(body), signal);
      if (!response.ok) {
        const failure = await errorFrom(response);
        if (failure.param && FIELD_PARAMS.includes(failure.param)) setFieldErrors({ [failure.param]: fieldMessage(failure.message) });
        else setError(failure);
        return;
      }
      const answer = (await response.json()) as ImageAnswer;
      add(answer, response.headers.get("x-request-id"), {
        format: settings.format,
        label: prompt.slice(0, 40) || "image",
        latencyMs: Math.round(performance.now() - started),
      });
    } catch (caught) {
      // Stopped by the user: nothing was charged (the gateway releases a cut request's reservation).
      if (wasStopped(caught)) setStopped(true);
      else setError(caught as Error);
    } finally {
      run_.finish();
    }
  }

  return (
    <Grid gap="md">
      <Grid.Col span={{ base: 12, md: 5 }}>
        <Card withBorder radius="lg" padding="lg">
          <form onSubmit={run} noValidate aria-label="Generate an image">
            <Stack gap="md">
              <Textarea
                label="Prompt"
                description="Describe the image. Text in images and exact placement may come out imprecise."
                autosize
                minRows={3}
                maxRows={8}
                value={prompt}
                onChange={(event) => setPrompt(event.currentTarget.value)}
                error={fieldErrors.prompt}
                name="prompt"
                onKeyDown={(event) => {
                  if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) void run(event);
                }}
              />
              <ImageControls value={settings} onChange={setSettings} serverErrors={fieldErrors} />
              {running ? (
                <RunningLine elapsedMs={run_.elapsedMs} onStop={run_.stop} />
              ) : (
                <Button type="submit" size="md" disabled={invalid} leftSection={<IconSparkles size={18} />}>
                  Generate image
                </Button>
              )}
              {stopped ? (
                <Text size="xs" c="dimmed" data-testid="run-stopped">
                  Stopped. A request stopped before its image arrived is not charged.
                </Text>
              ) : null}
              <Text size="xs" c="dimmed" ta="center">
                Ctrl/⌘ + Enter in the prompt also generates.
              </Text>
            </Stack>
          </form>
        </Card>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 7 }}>
        <Stack gap="md" ref={resultsView.ref}>
          <RunError error={error} onRenewKey={onKeyRejected} />
          {running && results.length > 0 ? <PendingResult elapsedMs={run_.elapsedMs} /> : null}
          {results.length === 0 ? (
            <Card withBorder radius="lg" py={56}>
              <EmptyState
                icon={running ? <IconSparkles size={28} /> : <IconPhoto size={28} />}
                variant="light"
                title={running ? `Generating… ${(run_.elapsedMs / 1000).toFixed(0)} s` : "Your images appear here"}
                description={
                  running
                    ? "Complex prompts can take up to two minutes."
                    : "Pick a size, quality and format, then generate. Each image is billed by its tokens."
                }
              />
            </Card>
          ) : (
            results.map((result, index) => (
              <div key={result.id}>
                {index === 1 ? (
                  <Title order={3} fz="sm" c="dimmed" mb="xs">
                    Earlier in this session
                  </Title>
                ) : null}
                <ImageCard image={result} source={source}>
                  <CostLine cost={result.cost} pending={result.cost === undefined} />
                </ImageCard>
              </div>
            ))
          )}
          <SnippetCard snippets={buildSnippets(origin, "/v1/images/generations", body)} />
        </Stack>
      </Grid.Col>
    </Grid>
  );
}
