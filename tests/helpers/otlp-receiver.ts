// A local OTLP/HTTP trace receiver, as a collector listens on :4318: it takes POST /v1/traces in protobuf or JSON,
// answers as the collector does (200 with an empty ExportTraceServiceResponse), and records every body raw and
// decoded, so tests can check the spans' attributes and search the raw bytes for what must never be sent.
import http from "node:http";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";

// The messages of opentelemetry/proto/collector/trace/v1 and trace/v1, common/v1, resource/v1 that a trace export
// carries (field numbers as in the OpenTelemetry protocol's .proto files).
const PROTO = `
syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5;
  int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8; repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10; Status status = 15;
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; }
}
`;
const REQUEST = protobuf.parse(PROTO, { keepCase: false }).root.lookupType("ExportTraceServiceRequest");

export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client (the protocol's SpanKind). */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string | number | boolean>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  resource: Record<string, string | number | boolean>;
};

export type OtlpReceiver = {
  url: string;
  /** Every body received, as sent. */
  bodies: { contentType: string; raw: Buffer }[];
  spans: ReceivedSpan[];
  /** Resolves once a span matching `match` has arrived (polling; rejects after `timeoutMs`). */
  waitFor: (match: (span: ReceivedSpan) => boolean, timeoutMs?: number) => Promise<ReceivedSpan>;
  close: () => Promise<void>;
};

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: number | string | { toString(): string }; doubleValue?: number };
type KeyValue = { key: string; value?: AnyValue };

function plainValue(value: AnyValue | undefined): string | number | boolean {
  if (!value) return "";
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.intValue !== undefined) return Number(value.intValue.toString());
  return "";
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((pair) => [pair.key, plainValue(pair.value)]));
}

const hex = (bytes: Uint8Array | string | undefined) =>
  bytes === undefined ? "" : typeof bytes === "string" ? bytes : Buffer.from(bytes).toString("hex");

/** The spans of one export, from either encoding (the JSON one writes ids as hex and 64-bit numbers as strings). */
function spansOf(contentType: string, raw: Buffer): ReceivedSpan[] {
  const request = contentType.includes("json")
    ? JSON.parse(raw.toString("utf8"))
    : REQUEST.toObject(REQUEST.decode(raw), { longs: String, bytes: Uint8Array, defaults: false });
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? [])
      for (const span of scopeSpans.spans ?? [])
        spans.push({
          traceId: hex(span.traceId),
          spanId: hex(span.spanId),
          parentSpanId: hex(span.parentSpanId),
          name: span.name,
          kind: Number(span.kind ?? 0),
          startNs: BigInt(span.startTimeUnixNano ?? 0),
          endNs: BigInt(span.endTimeUnixNano ?? 0),
          attributes: attributesOf(span.attributes),
          statusCode: Number(span.status?.code ?? 0),
          resource,
        });
  }
  return spans;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: OtlpReceiver = {
    url: "",
    bodies: [],
    spans: [],
    waitFor: async (match, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = receiver.spans.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching span within ${timeoutMs} ms (${receiver.spans.length} received)`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: async () => undefined,
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const contentType = String(request.headers["content-type"] ?? "");
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      const raw = Buffer.concat(chunks);
      receiver.bodies.push({ contentType, raw });
      try {
        receiver.spans.push(...spansOf(contentType, raw));
      } catch {
        response.writeHead(400).end();
        return;
      }
      if (contentType.includes("json")) response.writeHead(200, { "content-type": "application/json" }).end("{}");
      else response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
