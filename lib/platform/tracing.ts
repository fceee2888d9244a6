// OpenTelemetry traces (docs/architecture.md, "Traces"): off unless OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. Then each /v1 request is a span, each upstream attempt a child span, sent
// over OTLP/HTTP (protobuf by default, JSON with OTEL_EXPORTER_OTLP_PROTOCOL=http/json) in batches, encoded and sent by
// a worker thread (lib/platform/tracing-worker.ts). The SDK is loaded only when tracing is on: off, a request pays one
// test of an undefined field. No automatic instrumentation: spans carry only what the gateway sets, so ids, names and
// numbers, never a key, a prompt or an answer.
import {
  trace,
  context as otelContext,
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type HrTime,
  type Span,
  type SpanStatus,
  type Tracer,
} from "@opentelemetry/api";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace-base";
import { log } from "./log";
import { ConfigError } from "./env";
import { singleton } from "./singleton";
import { WorkerPool, WorkerUnavailable } from "./worker-pool";

type Exporting = { tracer: Tracer; shutdown: () => Promise<void> };

const state = singleton("tracing", () => ({ exporting: null as Exporting | null }));

/** What the environment asks for: the OTLP endpoint and protocol, or why tracing stays off. */
export function tracingSettings(
  source: Record<string, string | undefined> = process.env,
): { on: true; protocol: "http/protobuf" | "http/json" } | { on: false; reason: string } {
  const endpoint = source.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || source.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint) return { on: false, reason: "OTEL_EXPORTER_OTLP_ENDPOINT is not set" };
  if (source.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return { on: false, reason: "OTEL_SDK_DISABLED=true" };
  const exporter = source.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter && exporter !== "otlp") return { on: false, reason: `OTEL_TRACES_EXPORTER=${exporter}` };
  const protocol = (source.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? source.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf").trim();
  if (protocol !== "http/protobuf" && protocol !== "http/json")
    throw new ConfigError(
      `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: the gateway sends traces over OTLP/HTTP; use http/protobuf or http/json and the collector's HTTP port (4318)`,
    );
  return { on: true, protocol };
}

/** A finished span as it crosses to the exporter's worker: plain data, copied by postMessage. */
export type PlainSpan = {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  traceFlags: number;
  parentSpanId: string | undefined;
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  status: SpanStatus;
  attributes: Attributes;
  droppedAttributesCount: number;
};

function plain(span: ReadableSpan): PlainSpan {
  const context = span.spanContext();
  return {
    name: span.name,
    kind: span.kind,
    traceId: context.traceId,
    spanId: context.spanId,
    traceFlags: context.traceFlags,
    parentSpanId: span.parentSpanContext?.spanId,
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    status: span.status,
    attributes: span.attributes,
    droppedAttributesCount: span.droppedAttributesCount,
  };
}

/**
 * The batch processor's exporter on the event loop: it copies each batch to the worker (lib/platform/tracing-worker.ts),
 * which encodes and sends it, and reports the worker's result back to the processor. Where no worker can start, it
 * says so once and the batches are dropped: tracing must never cost the requests more than it does here.
 */
class WorkerSpanExporter implements SpanExporter {
  readonly #pool = new WorkerPool(workerFile(), { size: 1 });
  #warned = false;

  export(spans: ReadableSpan[], done: (result: { code: 0 | 1; error?: Error }) => void): void {
    this.#pool.run<{ code: 0 | 1; error?: string }>({ spans: spans.map(plain) }).then(
      (result) => done(result.code === 0 ? { code: 0 } : { code: 1, error: new Error(result.error ?? "the export failed") }),
      (error: Error) => {
        if (error instanceof WorkerUnavailable && !this.#warned) {
          this.#warned = true;
          log.warn("tracing: the exporter's worker could not start; spans are dropped", { error });
        }
        done({ code: 1, error });
      },
    );
  }

  async shutdown(): Promise<void> {
    await this.#pool.run({ shutdown: true }).catch(() => undefined);
    await this.#pool.close();
  }
}

function workerFile(): URL | null {
  const here = import.meta.url;
  return here.endsWith("/tracing.ts") ? new URL("./tracing-worker.ts", here) : null;
}

/**
 * Starts exporting when the environment asks for it (server.ts, before the first request). OTEL_BSP_* set the
 * batches; the worker's exporter reads the endpoint, OTEL_EXPORTER_OTLP_HEADERS and the timeout, and
 * OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES make the resource.
 */
export async function startTracing(): Promise<boolean> {
  const settings = tracingSettings();
  if (!settings.on || state.exporting) return Boolean(state.exporting);
  const [{ BasicTracerProvider, BatchSpanProcessor }, { diag, DiagLogLevel }] = await Promise.all([
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/api"),
  ]);
  // The SDK reports a collector it cannot reach through diag: one warning a minute at most, never a flood.
  let warnedAt = 0;
  const warn = (message: string, ...args: unknown[]) => {
    if (Date.now() - warnedAt < 60_000) return;
    warnedAt = Date.now();
    log.warn("tracing: could not export spans", { detail: [message, ...args].map(String).join(" ").slice(0, 300) });
  };
  diag.setLogger({ error: warn, warn, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new WorkerSpanExporter())] });
  state.exporting = { tracer: provider.getTracer("model-gateway"), shutdown: () => provider.shutdown() };
  log.info("tracing on", { protocol: settings.protocol });
  return true;
}

/** Sends what is still batched and stops (server.ts, at shutdown, after the ledger's last settlements). */
export async function stopTracing(): Promise<void> {
  const exporting = state.exporting;
  state.exporting = null;
  await exporting?.shutdown().catch((error: unknown) => log.warn("tracing: the last spans were not sent", { error }));
}

/**
 * Starts a request's span, named after its route's template (never its URL: a Gemini key may ride in the query
 * string), or returns undefined when tracing is off, having made nothing (the caller keeps it on the request's context).
 */
export function traceRequest(method: string, route: string, requestId: string): RequestTrace | undefined {
  const exporting = state.exporting;
  if (!exporting) return undefined;
  const attributes = { "http.request.method": method, "http.route": route, "gateway.request.id": requestId };
  return new RequestTrace(exporting.tracer, exporting.tracer.startSpan(`${method} ${route}`, { kind: SpanKind.SERVER, attributes }));
}

/**
 * One request's spans. The request's span ends when the response has been answered and every reservation taken for
 * it has settled (a stream settles when it ends, after its headers went out), so it carries the tokens and the cost.
 */
export class RequestTrace {
  /** The answer, plus one per reservation not yet settled. */
  #open = 1;
  /** The upstream attempt that is serving the answer: ended with the request's usage. */
  #serving: Span | null = null;

  constructor(
    private readonly tracer: Tracer,
    readonly span: Span,
  ) {}

  set(attributes: Attributes): void {
    this.span.setAttributes(attributes);
  }

  /** An upstream attempt, as a child span (the caller ends it through `attemptFailed` or `attemptServing`). */
  attempt(name: string, attributes: Attributes): Span {
    return this.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, trace.setSpan(otelContext.active(), this.span));
  }

  attemptFailed(span: Span, attributes: Attributes, message: string): void {
    span.setAttributes(attributes);
    span.setStatus({ code: SpanStatusCode.ERROR, message });
    span.end();
  }

  attemptServing(span: Span, attributes: Attributes): void {
    span.setAttributes(attributes);
    this.#serving?.end();
    this.#serving = span;
  }

  /** A reservation was taken: the span waits for its settlement. */
  hold(attributes: Attributes): void {
    this.#open++;
    this.span.setAttributes(attributes);
  }

  /** A reservation settled: its usage and cost go on the request's span and on the attempt that served it, which
   *  failed if the upstream cut its answer (`upstreamFailed`; a client leaving is not the upstream's failure). */
  settled(attributes: Attributes, upstreamFailed: boolean): void {
    this.span.setAttributes(attributes);
    if (this.#serving) {
      this.#serving.setAttributes(attributes);
      this.#serving.setStatus({ code: upstreamFailed ? SpanStatusCode.ERROR : SpanStatusCode.OK });
      this.#serving.end();
      this.#serving = null;
    }
    this.#release();
  }

  /** The response went out with this status (its body may still be streaming). */
  answered(status: number, errorType: string | undefined): void {
    this.span.setAttribute("http.response.status_code", status);
    if (errorType) this.span.setAttribute("error.type", errorType);
    if (status >= 500) this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.#release();
  }

  #release(): void {
    if (--this.#open > 0) return;
    this.#serving?.end();
    this.#serving = null;
    this.span.end();
  }
}
