"use client";
// Reads a streaming Responses run (POST /v1/responses, stream: true) into what the Responses panel shows: the
// timeline of events (heartbeats folded into one line), each image the moment its partial_image event lands, the
// revised prompt when its output item closes, the text, the elapsed time, and, when the run completes, the tokens of
// both parts and the cost read back from the ledger.
import { useEffect, useRef, useState } from "react";
import { errorFrom, fieldMessage, type ApiError } from "@/lib/portal/api";
import { findLedgerRow } from "@/lib/portal/playground";
import { readEventStream, type StreamEvent } from "@/lib/portal/sse";
import type { ShownImage, SendRequest } from "./shared";

export type Entry = { key: string; type: string; title: string; detail?: string; atMs: number; heartbeats?: number; color?: string };
export type RunImage = ShownImage & { key: string; preview?: string };
export type Summary = { textInput: number; textOutput: number; imageOutput: number; cost?: number | null };
export type RunState = "idle" | "running" | "done" | "failed" | "stopped";

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

/** Which image each event belongs to: by item id, else output index, else the latest one. */
function imageTracker(): (payload: Record<string, unknown>) => { key: string; number: number } {
  const imageKeys: string[] = [];
  return (payload) => {
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
}

/** A partial image replaces the image it belongs to (keeping its revised prompt), or is added. */
function withPartialImage(current: RunImage[], shown: RunImage): RunImage[] {
  return current.some((entry) => entry.key === shown.key)
    ? current.map((entry) => (entry.key === shown.key ? { ...entry, ...shown, revisedPrompt: entry.revisedPrompt } : entry))
    : [...current, shown];
}

/** A closed image item adds its revised prompt, or the image itself when no partial image came for it. */
function withClosedItem(
  current: RunImage[],
  item: Record<string, unknown>,
  image: { key: string; number: number },
  format: string,
  time: number,
): RunImage[] {
  const existing = current.find((entry) => entry.key === image.key);
  const revisedPrompt = str(item.revised_prompt);
  if (existing)
    return current.map((entry) =>
      entry.key === image.key
        ? { ...entry, revisedPrompt, size: entry.size ?? str(item.size), quality: entry.quality ?? str(item.quality) }
        : entry,
    );
  const result = str(item.result);
  return result
    ? [
        ...current,
        {
          key: image.key,
          b64: result,
          format: str(item.output_format) ?? format,
          label: `image-${image.number}`,
          revisedPrompt,
          size: str(item.size),
          quality: str(item.quality),
          latencyMs: time,
        },
      ]
    : current;
}

export type ResponsesStream = {
  entries: Entry[];
  images: RunImage[];
  text: string;
  summary: Summary | null;
  state: RunState;
  error: ApiError | Error | null;
  fieldErrors: Record<string, string>;
  setFieldErrors: (errors: Record<string, string>) => void;
  elapsed: number;
  /** Sends `body` and reads its events; `previews` is the partial_images asked for, `format` the image format asked for. */
  start: (body: unknown, options: { previews: number; format: string }) => Promise<void>;
  stop: () => void;
};

export function useResponsesStream(model: string, send: SendRequest): ResponsesStream {
  const [entries, setEntries] = useState<Entry[]>([]);
  const [images, setImages] = useState<RunImage[]>([]);
  const [text, setText] = useState("");
  const [summary, setSummary] = useState<Summary | null>(null);
  const [state, setState] = useState<RunState>("idle");
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [elapsed, setElapsed] = useState(0);
  const abort = useRef<AbortController | null>(null);
  const startedAt = useRef(0);

  useEffect(() => {
    if (state !== "running") return;
    const timer = setInterval(() => setElapsed(performance.now() - startedAt.current), 100);
    return () => clearInterval(timer);
  }, [state]);

  useEffect(() => () => abort.current?.abort(), []);

  async function start(body: unknown, options: { previews: number; format: string }) {
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
    const imageOf = imageTracker();
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
          const index = num(payload.partial_image_index);
          const shown: RunImage = {
            key: image.key,
            preview: options.previews > 0 && index < options.previews ? `Preview ${index + 1} of ${options.previews}` : undefined,
            b64: str(payload.partial_image_b64)!,
            format: str(payload.output_format) ?? options.format,
            label: `image-${image.number}`,
            size: str(payload.size),
            quality: str(payload.quality),
            latencyMs: time,
          };
          setImages((current) => withPartialImage(current, shown));
        }
        if (event.type === "response.output_item.done" && imageEvent) {
          const item = payload.item as Record<string, unknown>;
          setImages((current) => withClosedItem(current, item, image, options.format, time));
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

  return { entries, images, text, summary, state, error, fieldErrors, setFieldErrors, elapsed, start, stop: () => abort.current?.abort() };
}
