"use client";
// A streaming Responses run (POST /v1/responses, stream: true, the image_generation tool): every event is shown as
// it arrives (created, in progress, generating, heartbeats with the elapsed time, each image the moment its
// partial_image event lands, the revised prompt when its output item closes) and, when the run completes, the
// tokens of both parts and the cost read back from the ledger.
import { useEffect, useRef, useState } from "react";
import {
  Alert,
  Badge,
  Button,
  Card,
  EmptyState,
  Grid,
  Group,
  Loader,
  ScrollArea,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  ThemeIcon,
  Timeline,
  Title,
} from "@mantine/core";
import {
  IconCheck,
  IconCircleDot,
  IconHeartbeat,
  IconPhoto,
  IconPlayerPlay,
  IconPlayerStop,
  IconSparkles,
  IconTimeline,
  IconX,
} from "@tabler/icons-react";
import { errorFrom, fieldMessage, type ApiError } from "@/lib/portal/api";
import { useBaseUrl } from "@/components/base-url";
import { count } from "@/lib/portal/format";
import {
  DEFAULT_IMAGE_SETTINGS,
  DEFAULT_INSTRUCTIONS,
  findLedgerRow,
  formatSeconds,
  responsesBody,
  type ImageSettings,
} from "@/lib/portal/playground";
import { readEventStream, type StreamEvent } from "@/lib/portal/sse";
import { buildSnippets } from "@/lib/portal/snippets";
import type { ModelSource } from "@/lib/portal/server";
import { ImageControls, sizeProblem } from "./image-controls";
import { SnippetCard } from "./snippet-card";
import { CostLine, ImageCard, RunError, SourceBadge, type ShownImage, type SendRequest } from "./shared";

type Entry = { key: string; type: string; title: string; detail?: string; atMs: number; heartbeats?: number; color?: string };
type RunImage = ShownImage & { key: string; preview?: string };
type Summary = { textInput: number; textOutput: number; imageOutput: number; cost?: number | null };

const FIELD_PARAMS = ["instructions", "input", "size", "quality", "output_format", "output_compression", "moderation", "action"];

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** What an event says, for the timeline. */
function describe(event: StreamEvent, imageNumber: number): { title: string; detail?: string; color?: string } {
  const payload = event.payload ?? {};
  const item = (payload.item ?? {}) as Record<string, unknown>;
  switch (event.type) {
    case "response.created":
      return { title: "Request created", detail: str((payload.response as Record<string, unknown> | undefined)?.id) };
    case "response.in_progress":
      return { title: "Processing started" };
    case "response.output_item.added":
      return item.type === "image_generation_call"
        ? { title: `Image ${imageNumber}: tool call started` }
        : { title: `Output item added (${str(item.type) ?? "item"})` };
    case "response.image_generation_call.in_progress":
      return { title: `Image ${imageNumber}: in progress` };
    case "response.image_generation_call.generating":
      return { title: `Image ${imageNumber}: generating` };
    case "response.image_generation_call.partial_image":
      return { title: `Image ${imageNumber}: received`, color: "teal" };
    case "response.output_item.done":
      return item.type === "image_generation_call"
        ? {
            title: `Image ${imageNumber}: done`,
            detail: str(item.revised_prompt) ? `Revised prompt: ${str(item.revised_prompt)}` : undefined,
            color: "teal",
          }
        : { title: `Output item done (${str(item.type) ?? "item"})` };
    case "response.completed":
      return { title: "Completed", color: "teal" };
    case "response.failed":
    case "error":
      return { title: "Failed", detail: errorText(payload), color: "red" };
    default:
      return { title: event.type };
  }
}

function errorText(payload: Record<string, unknown>): string {
  const response = payload.response as { error?: { message?: string } } | undefined;
  const error = payload.error as { message?: string } | undefined;
  return response?.error?.message ?? error?.message ?? str(payload.message) ?? "The run failed";
}

export function ResponsesPanel({
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
  const [instructions, setInstructions] = useState(DEFAULT_INSTRUCTIONS);
  const [prompt, setPrompt] = useState("Draw a cozy reading corner with a cat asleep on a stack of books");
  const [action, setAction] = useState("auto");
  // partial_images: progress images while each image is made, shown in place of the image until it is done.
  const [previews, setPreviews] = useState("0");
  const [settings, setSettings] = useState<ImageSettings>(DEFAULT_IMAGE_SETTINGS);
  const [entries, setEntries] = useState<Entry[]>([]);
  const [images, setImages] = useState<RunImage[]>([]);
  const [text, setText] = useState("");
  const [summary, setSummary] = useState<Summary | null>(null);
  const [state, setState] = useState<"idle" | "running" | "done" | "failed" | "stopped">("idle");
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [elapsed, setElapsed] = useState(0);
  const abort = useRef<AbortController | null>(null);
  const startedAt = useRef(0);
  const viewport = useRef<HTMLDivElement>(null);

  const body = responsesBody(model, instructions, prompt, { ...settings, size: settings.size.trim() }, action, Number(previews));
  const origin = useBaseUrl();
  const invalid = Boolean(sizeProblem(settings.size)) || !prompt.trim() || !instructions.trim();

  useEffect(() => {
    if (state !== "running") return;
    const timer = setInterval(() => setElapsed(performance.now() - startedAt.current), 100);
    return () => clearInterval(timer);
  }, [state]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll to the end whenever an entry is added or grows
  useEffect(() => {
    viewport.current?.scrollTo({ top: viewport.current.scrollHeight, behavior: "smooth" });
  }, [entries]);

  useEffect(() => () => abort.current?.abort(), []);

  async function run() {
    if (invalid) {
      if (!prompt.trim()) setFieldErrors({ input: "Say what to draw" });
      if (!instructions.trim()) setFieldErrors({ instructions: "Instructions are required" });
      return;
    }
    const controller = new AbortController();
    abort.current = controller;
    setEntries([]);
    setImages([]);
    setText("");
    setSummary(null);
    setError(null);
    setFieldErrors({});
    setState("running");
    startedAt.current = performance.now();
    setElapsed(0);
    const at = () => Math.round(performance.now() - startedAt.current);
    // Which image each event belongs to: by item id, else output index, else the latest one.
    const imageKeys: string[] = [];
    const imageOf = (payload: Record<string, unknown>): { key: string; number: number } => {
      const item = payload.item as Record<string, unknown> | undefined;
      const key =
        str(payload.item_id) ??
        str(item?.id) ??
        (payload.output_index !== undefined ? `index-${String(payload.output_index)}` : (imageKeys.at(-1) ?? "image-1"));
      let index = imageKeys.indexOf(key);
      if (index < 0) {
        imageKeys.push(key);
        index = imageKeys.length - 1;
      }
      return { key, number: index + 1 };
    };
    let completed = false;
    let failed = false;
    try {
      const response = await send("/v1/responses", JSON.stringify(body), controller.signal);
      if (!response.ok) {
        const failure = await errorFrom(response);
        // "tools[0].size" → the size field, "input[0]" → the input field.
        const field = failure.param
          ?.split(".")
          .at(-1)
          ?.replace(/\[\d+\]$/, "");
        if (field && FIELD_PARAMS.includes(field)) setFieldErrors({ [field]: fieldMessage(failure.message) });
        else setError(failure);
        setState("failed");
        return;
      }
      const requestId = response.headers.get("x-request-id");
      let sequence = 0;
      await readEventStream(response, (event) => {
        const payload = event.payload ?? {};
        const time = at();
        if (event.type === "keepalive") {
          // Consecutive heartbeats fold into one line that counts them and shows the latest elapsed time.
          setEntries((current) => {
            const last = current.at(-1);
            if (last?.type === "keepalive")
              return [...current.slice(0, -1), { ...last, heartbeats: (last.heartbeats ?? 1) + 1, atMs: time }];
            return [...current, { key: `e${sequence++}`, type: "keepalive", title: "Heartbeat", atMs: time, heartbeats: 1 }];
          });
          return;
        }
        if (event.type === "response.output_text.delta") {
          setText((current) => current + (str(payload.delta) ?? ""));
          return;
        }
        const imageEvent =
          event.type.startsWith("response.image_generation_call") ||
          (event.type.startsWith("response.output_item") &&
            (payload.item as Record<string, unknown> | undefined)?.type === "image_generation_call");
        const image = imageEvent ? imageOf(payload) : { key: "", number: 0 };
        const description = describe(event, image.number);
        setEntries((current) => [...current, { key: `e${sequence++}`, type: event.type, atMs: time, ...description }]);

        if (event.type === "response.image_generation_call.partial_image" && str(payload.partial_image_b64)) {
          const wanted = Number(previews);
          const index = num(payload.partial_image_index);
          const shown: RunImage = {
            key: image.key,
            preview: wanted > 0 && index < wanted ? `Preview ${index + 1} of ${wanted}` : undefined,
            b64: str(payload.partial_image_b64)!,
            format: str(payload.output_format) ?? settings.format,
            label: `image-${image.number}`,
            size: str(payload.size),
            quality: str(payload.quality),
            latencyMs: time,
          };
          setImages((current) =>
            current.some((entry) => entry.key === image.key)
              ? current.map((entry) => (entry.key === image.key ? { ...entry, ...shown, revisedPrompt: entry.revisedPrompt } : entry))
              : [...current, shown],
          );
        }
        if (event.type === "response.output_item.done" && imageEvent) {
          const item = payload.item as Record<string, unknown>;
          setImages((current) => {
            const existing = current.find((entry) => entry.key === image.key);
            const revisedPrompt = str(item.revised_prompt);
            if (existing)
              return current.map((entry) =>
                entry.key === image.key
                  ? { ...entry, revisedPrompt, size: entry.size ?? str(item.size), quality: entry.quality ?? str(item.quality) }
                  : entry,
              );
            // No partial image came for it, but the closed item carries the result.
            const result = str(item.result);
            return result
              ? [
                  ...current,
                  {
                    key: image.key,
                    b64: result,
                    format: str(item.output_format) ?? settings.format,
                    label: `image-${image.number}`,
                    revisedPrompt,
                    size: str(item.size),
                    quality: str(item.quality),
                    latencyMs: time,
                  },
                ]
              : current;
          });
        }
        if (event.type === "response.completed") {
          completed = true;
          const done = (payload.response ?? {}) as {
            usage?: Record<string, unknown>;
            tool_usage?: { image_gen?: Record<string, unknown> };
          };
          setSummary({
            textInput: num(done.usage?.input_tokens),
            textOutput: num(done.usage?.output_tokens),
            imageOutput: num(done.tool_usage?.image_gen?.output_tokens),
          });
        }
        if (event.type === "response.failed" || event.type === "error") {
          failed = true;
          setError(new Error(errorText(payload)));
        }
      });
      setElapsed(performance.now() - startedAt.current);
      if (failed) setState("failed");
      else if (completed) setState("done");
      else {
        setState("failed");
        setError(new Error("The stream ended before the response completed."));
      }
      void findLedgerRow(requestId, model)
        .then((row) =>
          setSummary((current) =>
            current
              ? { ...current, cost: row ? row.cost : null }
              : row
                ? { textInput: row.textInputTokens, textOutput: row.textOutputTokens, imageOutput: row.imageOutputTokens, cost: row.cost }
                : null,
          ),
        )
        .catch(() => setSummary((current) => (current ? { ...current, cost: null } : current)));
    } catch (caught) {
      if (controller.signal.aborted) {
        setState("stopped");
        setEntries((current) => [
          ...current,
          { key: `stop-${Date.now()}`, type: "stopped", title: "Stopped by you", atMs: at(), color: "gray" },
        ]);
      } else {
        setError(caught as Error);
        setState("failed");
      }
    } finally {
      abort.current = null;
    }
  }

  const running = state === "running";
  const bullet = (entry: Entry) =>
    entry.type === "keepalive" ? (
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

  return (
    <Grid gap="md">
      <Grid.Col span={{ base: 12, md: 5 }}>
        <Card withBorder radius="lg" padding="lg">
          <form
            onSubmit={(event) => {
              event.preventDefault();
              void run();
            }}
            noValidate
            aria-label="Run a Responses request"
          >
            <Stack gap="md">
              <Textarea
                label="Instructions"
                description="Required: how the text model should behave."
                autosize
                minRows={2}
                maxRows={5}
                value={instructions}
                onChange={(event) => setInstructions(event.currentTarget.value)}
                error={fieldErrors.instructions}
                name="instructions"
              />
              <Textarea
                label="Input"
                description="What you ask for. Ask for several images to get several tool calls."
                autosize
                minRows={3}
                maxRows={8}
                value={prompt}
                onChange={(event) => setPrompt(event.currentTarget.value)}
                error={fieldErrors.input}
                name="input"
              />
              <Select
                label="Tool action"
                data={[
                  { value: "auto", label: "auto: the model decides" },
                  { value: "generate", label: "generate: always a new image" },
                ]}
                value={action}
                onChange={(value) => setAction(value ?? "auto")}
                allowDeselect={false}
                error={fieldErrors.action}
              />
              <ImageControls value={settings} onChange={setSettings} serverErrors={fieldErrors} />
              <Select
                label="Progress previews"
                description="partial_images: blurred previews while each image is made"
                data={[
                  { value: "0", label: "None" },
                  { value: "1", label: "1 preview" },
                  { value: "2", label: "2 previews" },
                  { value: "3", label: "3 previews" },
                ]}
                value={previews}
                onChange={(value) => setPreviews(value ?? "0")}
                allowDeselect={false}
                data-testid="previews-select"
              />
              {running ? (
                <Button
                  size="md"
                  color="red"
                  variant="light"
                  leftSection={<IconPlayerStop size={18} />}
                  onClick={() => abort.current?.abort()}
                >
                  Stop
                </Button>
              ) : (
                <Button type="submit" size="md" disabled={invalid} leftSection={<IconPlayerPlay size={18} />}>
                  Run streaming request
                </Button>
              )}
            </Stack>
          </form>
        </Card>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 7 }}>
        <Stack gap="md">
          <RunError error={error} onRenewKey={onKeyRejected} />
          {state === "idle" ? (
            <Card withBorder radius="lg" py={56}>
              <EmptyState
                icon={<IconTimeline size={28} />}
                variant="light"
                title="Events appear here live"
                description="Created, generating, heartbeats during long generations, each image as it arrives, the revised prompt and the cost."
              />
            </Card>
          ) : (
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
              {summary ? (
                <Card withBorder radius="md" mt="md" padding="sm" bg="var(--mantine-color-default-hover)">
                  <Group justify="space-between" wrap="wrap" gap="xs">
                    <Group gap="xs" wrap="wrap">
                      <ThemeIcon size="sm" variant="light" color="teal">
                        <IconCheck size={14} />
                      </ThemeIcon>
                      <Text size="sm">
                        Text model: {count(summary.textInput)} in / {count(summary.textOutput)} out · image tool:{" "}
                        {count(summary.imageOutput)} tokens
                      </Text>
                    </Group>
                    <CostLine cost={summary.cost} pending={summary.cost === undefined} />
                  </Group>
                </Card>
              ) : null}
            </Card>
          )}
          <SnippetCard snippets={buildSnippets(origin, "/v1/responses", body)} />
        </Stack>
      </Grid.Col>
    </Grid>
  );
}
