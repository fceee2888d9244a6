// OpenTelemetry traces (docs/architecture.md, "Traces"): off unless OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. Then each /v1 request is a span, each upstream attempt a child span, sent
// over OTLP/HTTP (protobuf by default, JSON with OTEL_EXPORTER_OTLP_PROTOCOL=http/json) in batches. The SDK is loaded
// only when tracing is on: off, a request pays one test of an undefined field. No automatic instrumentation: spans
// carry only what the gateway sets, so ids, names and numbers, never a key, a prompt or an answer.
import { trace, context as otelContext, SpanKind, SpanStatusCode, type Attributes, type Span, type Tracer } from "@opentelemetry/api";
import { log } from "./log";
import { ConfigError } from "./env";
import { singleton } from "./singleton";

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

/**
 * Starts exporting when the environment asks for it (server.ts, before the first request). The exporter reads the
 * standard variables itself: the endpoint, OTEL_EXPORTER_OTLP_HEADERS, the timeout, OTEL_BSP_* for the batches,
 * OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES for the resource.
 */
export async function startTracing(): Promise<boolean> {
  const settings = tracingSettings();
  if (!settings.on || state.exporting) return Boolean(state.exporting);
  const [
    { BasicTracerProvider, BatchSpanProcessor },
    { resourceFromAttributes, envDetector, detectResources },
    exporterModule,
    { diag, DiagLogLevel },
  ] = await Promise.all([
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/resources"),
    settings.protocol === "http/json"
      ? import("@opentelemetry/exporter-trace-otlp-http")
      : import("@opentelemetry/exporter-trace-otlp-proto"),
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
  const resource = resourceFromAttributes({ "service.name": process.env.OTEL_SERVICE_NAME?.trim() || "model-gateway" }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new exporterModule.OTLPTraceExporter())],
  });
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

/** Starts a request's span, or returns undefined when tracing is off (the caller keeps it on the request's context). */
export function traceRequest(name: string, attributes: Attributes): RequestTrace | undefined {
  const exporting = state.exporting;
  if (!exporting) return undefined;
  return new RequestTrace(exporting.tracer, exporting.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }));
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
