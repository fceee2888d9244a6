"use client";
// Pieces the playground panels share: the error box (with the way out for an empty balance or key), the cost
// line read back from the ledger, and the image card.
import { useCallback, useEffect, useRef, useState } from "react";
import Link from "next/link";
import { Alert, Anchor, Badge, Button, Card, Group, Image, Loader, Stack, Text } from "@mantine/core";
import { IconAlertTriangle, IconDownload } from "@tabler/icons-react";
import type { ApiError } from "@/lib/portal/api";
import { count, usdPrecise } from "@/lib/portal/format";
import { findLedgerRow, formatSeconds } from "@/lib/portal/playground";
import type { ModelSource } from "@/lib/portal/server";
import type { PlaygroundEndpoint } from "@/lib/portal/snippets";
import { SimulatorBadge } from "@/components/feedback";

const MONEY_CODES = new Set(["insufficient_balance", "insufficient_quota"]);
const KEY_CODES = new Set(["invalid_api_key", "expired_api_key", "disabled_api_key", "missing_api_key", "authentication_error"]);

/** Sends a playground request to a /v1 path (a JSON string, or the form of an image edit): through the session, or
 * with a pasted key. */
export type SendRequest = (path: PlaygroundEndpoint, body: string | FormData, signal?: AbortSignal) => Promise<Response>;

export function RunError({ error, onRenewKey }: { error: ApiError | Error | null; onRenewKey?: () => void }) {
  if (!error) return null;
  const code = "code" in error ? (error as ApiError).code : "";
  return (
    <Alert
      color="red"
      variant="light"
      icon={<IconAlertTriangle size={18} />}
      title="The request failed"
      role="alert"
      data-testid="run-error"
    >
      <Stack gap="xs">
        <Text size="sm">{error.message}</Text>
        {MONEY_CODES.has(code) ? (
          <Group>
            <Button size="xs" component={Link} href="/redeem" variant="light">
              Redeem a code
            </Button>
          </Group>
        ) : null}
        {code === "quota_exhausted" && onRenewKey ? (
          <Group>
            <Button size="xs" variant="light" onClick={onRenewKey}>
              Renew the playground's spending cap
            </Button>
          </Group>
        ) : null}
        {KEY_CODES.has(code) ? (
          <Text size="xs" c="dimmed">
            Check the key you pasted, or switch back to the playground&apos;s own key.
          </Text>
        ) : null}
      </Stack>
    </Alert>
  );
}

export function SourceBadge({ source }: { source: ModelSource | undefined }) {
  if (source === "simulator") return <SimulatorBadge />;
  if (source === "mixed") return <SimulatorBadge mixed />;
  return null;
}

/** "$0.006144 · 196 image tokens" once the ledger row is there; a placeholder until then. */
export function CostLine({ cost, pending }: { cost: number | null | undefined; pending: boolean }) {
  if (cost === undefined || (cost === null && pending)) {
    return (
      <Text size="sm" c="dimmed">
        Cost: reading the ledger…
      </Text>
    );
  }
  if (cost === null) {
    return (
      <Text size="sm" c="dimmed">
        Cost: see{" "}
        <Anchor component={Link} href="/usage" size="sm">
          Usage
        </Anchor>
      </Text>
    );
  }
  return (
    <Text size="sm" fw={600} data-testid="run-cost">
      Cost: {usdPrecise(cost)}
    </Text>
  );
}

export type ShownImage = {
  b64: string;
  format: string;
  label: string;
  size?: string;
  quality?: string;
  revisedPrompt?: string;
  latencyMs?: number;
  tokens?: number;
};

export function ImageCard({ image, source, children }: { image: ShownImage; source: ModelSource | undefined; children?: React.ReactNode }) {
  const src = `data:image/${image.format};base64,${image.b64}`;
  return (
    <Card withBorder radius="lg" padding="sm" data-testid="result-card">
      <Card.Section>
        <div className="image-stage">
          <Image src={src} alt={image.revisedPrompt ?? image.label} fit="contain" mah={520} data-testid="result-image" />
        </div>
      </Card.Section>
      <Stack gap={6} mt="sm">
        <Group gap={6} wrap="wrap">
          <SourceBadge source={source} />
          {image.size ? (
            <Badge variant="default" tt="none">
              {image.size}
            </Badge>
          ) : null}
          {image.quality ? (
            <Badge variant="default" tt="none">
              {image.quality}
            </Badge>
          ) : null}
          <Badge variant="default" tt="none">
            {image.format}
          </Badge>
          {image.tokens !== undefined ? (
            <Badge variant="default" tt="none">
              {count(image.tokens)} image tokens
            </Badge>
          ) : null}
          {image.latencyMs !== undefined ? (
            <Badge variant="default" tt="none">
              {formatSeconds(image.latencyMs)}
            </Badge>
          ) : null}
        </Group>
        {image.revisedPrompt ? (
          <Text size="sm">
            <Text span c="dimmed" size="sm">
              Revised prompt:{" "}
            </Text>
            <span data-testid="revised-prompt">{image.revisedPrompt}</span>
          </Text>
        ) : null}
        <Group justify="space-between" wrap="wrap">
          <div>{children}</div>
          <Button
            size="xs"
            variant="default"
            component="a"
            href={src}
            download={`${image.label.replace(/[^\w-]+/g, "-")}.${image.format === "jpeg" ? "jpg" : image.format}`}
            leftSection={<IconDownload size={14} />}
          >
            Download
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

/**
 * A run that can be stopped and shows how long it has taken: `start()` gives the AbortSignal for the request,
 * `stop()` aborts it, `elapsedMs` ticks every 100 ms while running.
 */
export function useRun() {
  const controller = useRef<AbortController | null>(null);
  const [startedAt, setStartedAt] = useState<number | null>(null);
  const [now, setNow] = useState(0);
  useEffect(() => {
    if (startedAt === null) return;
    const timer = setInterval(() => setNow(performance.now()), 100);
    return () => clearInterval(timer);
  }, [startedAt]);
  return {
    running: startedAt !== null,
    elapsedMs: startedAt === null ? 0 : Math.max(0, now - startedAt),
    start(): AbortSignal {
      controller.current?.abort();
      controller.current = new AbortController();
      const at = performance.now();
      setStartedAt(at);
      setNow(at);
      return controller.current.signal;
    },
    finish() {
      controller.current = null;
      setStartedAt(null);
    },
    stop() {
      controller.current?.abort(new DOMException("Stopped", "AbortError"));
    },
  };
}

/** The portal's header (components/portal-shell.tsx) and a little air: what a scrolled-to element keeps above it. */
const HEADER_CLEARANCE_PX = 76;

/**
 * The results of a panel, brought to where the eye is when a run starts: the form's Run button sits at the bottom of
 * the left column (or, on a phone, above the results) while the results come in at the top of the right column, so
 * without this an image arrives off-screen. `ref` goes on the results column; `bring()` scrolls it up to just below
 * the header unless its top already shows in the upper half of the window.
 */
export function useResultsInView<T extends HTMLElement = HTMLDivElement>() {
  const ref = useRef<T>(null);
  const bring = useCallback(() => {
    const element = ref.current;
    if (!element) return;
    const top = element.getBoundingClientRect().top;
    if (top >= HEADER_CLEARANCE_PX - 1 && top <= window.innerHeight / 2) return;
    const reduced = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    window.scrollTo({ top: Math.max(0, window.scrollY + top - HEADER_CLEARANCE_PX), behavior: reduced ? "auto" : "smooth" });
  }, []);
  return { ref, bring };
}

/** Whether `error` is the abort of a run the user stopped. */
export function wasStopped(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}

/** The live "Generating… 12.3 s" line of a running image request, with its Stop button. */
export function RunningLine({ elapsedMs, onStop, what = "Generating" }: { elapsedMs: number; onStop: () => void; what?: string }) {
  return (
    <Group justify="space-between" data-testid="run-progress">
      <Text size="sm" c="dimmed" aria-live="polite">
        {what}… {formatSeconds(elapsedMs)}
      </Text>
      <Button size="xs" variant="default" color="red" onClick={onStop}>
        Stop
      </Button>
    </Group>
  );
}

/** Where the next image will appear, while it is made and earlier ones are shown below (the time is read out by
 * the form's RunningLine). */
export function PendingResult({ elapsedMs, what = "Generating" }: { elapsedMs: number; what?: string }) {
  return (
    <Card withBorder radius="lg" padding="md" data-testid="result-pending">
      <Group gap="sm" wrap="nowrap">
        <Loader size="sm" />
        <Text size="sm" c="dimmed">
          {what}… {formatSeconds(elapsedMs)}
        </Text>
      </Group>
    </Card>
  );
}

/** An image shown in a panel, with the cost read back from the ledger (undefined while looking, null if not found). */
export type ImageResult = ShownImage & { id: number; requestId: string | null; cost?: number | null };

/** The image API's answer (generations and edits), as far as the panels read it. */
export type ImageAnswer = {
  data: { b64_json?: string; url?: string; revised_prompt?: string }[];
  output_format?: string;
  size?: string;
  quality?: string;
  usage?: { output_tokens_details?: { image_tokens?: number } };
};

/** The last six images of a panel: `add` shows an answer at once and fills in its cost once the ledger has it. */
export function useImageResults(model: string) {
  const [results, setResults] = useState<ImageResult[]>([]);
  const setCost = (id: number, cost: number | null) =>
    setResults((current) => current.map((result) => (result.id === id ? { ...result, cost } : result)));
  function add(answer: ImageAnswer, requestId: string | null, shown: { format: string; label: string; latencyMs: number }) {
    const item = answer.data[0];
    const id = Date.now();
    const result: ImageResult = {
      id,
      requestId,
      b64: item?.b64_json ?? item?.url?.replace(/^data:[^,]*,/, "") ?? "",
      format: answer.output_format ?? shown.format,
      label: shown.label,
      size: answer.size,
      quality: answer.quality,
      revisedPrompt: item?.revised_prompt,
      tokens: answer.usage?.output_tokens_details?.image_tokens,
      latencyMs: shown.latencyMs,
    };
    setResults((current) => [result, ...current.slice(0, 5)]);
    void findLedgerRow(requestId, model)
      .then((row) => setCost(id, row ? row.cost : null))
      .catch(() => setCost(id, null));
  }
  return { results, add };
}
