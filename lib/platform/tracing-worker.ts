// The trace exporter's worker (lib/platform/tracing.ts, `WorkerSpanExporter`): encodes the spans the batch processor
// hands over (OTLP protobuf or JSON) and sends them to the collector, off the event loop. Encoding a batch of 512
// spans takes 4 to 20 ms, which on the event loop would hold every request for as long (docs/architecture.md,
// "Traces"). The OTLP exporter reads the standard variables itself (the endpoint, headers, timeout); the resource is
// OTEL_SERVICE_NAME (default model-gateway) and OTEL_RESOURCE_ATTRIBUTES.
import { parentPort } from "node:worker_threads";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import type { WorkerReply } from "./worker-pool";
import { tracingSettings, type PlainSpan } from "./tracing";

const settings = tracingSettings();
const protocol = settings.on ? settings.protocol : "http/protobuf";
const { OTLPTraceExporter } =
  protocol === "http/json"
    ? await import("@opentelemetry/exporter-trace-otlp-http")
    : await import("@opentelemetry/exporter-trace-otlp-proto");
const exporter = new OTLPTraceExporter();
const resource = resourceFromAttributes({ "service.name": process.env.OTEL_SERVICE_NAME?.trim() || "model-gateway" }).merge(
  detectResources({ detectors: [envDetector] }),
);
const scope = { name: "model-gateway" };

/** A span as the OTLP encoders read it, rebuilt from what crossed the thread boundary. */
function readable(span: PlainSpan): ReadableSpan {
  const context = { traceId: span.traceId, spanId: span.spanId, traceFlags: span.traceFlags };
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => context,
    parentSpanContext: span.parentSpanId
      ? { traceId: span.traceId, spanId: span.parentSpanId, traceFlags: span.traceFlags, isRemote: false }
      : undefined,
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    status: span.status,
    attributes: span.attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

const port = parentPort!;
port.on("message", (job: { id: number; spans?: PlainSpan[]; shutdown?: true }) => {
  if (job.shutdown) {
    void exporter.shutdown().then(
      () => port.postMessage({ id: job.id, result: { code: 0 } } satisfies WorkerReply),
      (error: unknown) =>
        port.postMessage({ id: job.id, failure: error instanceof Error ? error.message : String(error) } satisfies WorkerReply),
    );
    return;
  }
  exporter.export((job.spans ?? []).map(readable), (result) =>
    port.postMessage({ id: job.id, result: { code: result.code, error: result.error?.message } } satisfies WorkerReply),
  );
});
port.postMessage({ id: -1 } satisfies WorkerReply);
