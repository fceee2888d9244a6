// When traces are sent (docs/architecture.md, "Traces"): only with an OTLP endpoint set, over HTTP, and never when
// the standard variables switch the SDK or the trace exporter off; a protocol the gateway does not speak stops the
// start with a message naming the variable.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError } from "@/lib/platform/env";
import { traceRequest, tracingSettings } from "@/lib/platform/tracing";

const endpoint = "http://127.0.0.1:4318";

test("off unless an OTLP endpoint is set; protobuf by default, JSON on request", () => {
  assert.deepEqual(tracingSettings({}), { on: false, reason: "OTEL_EXPORTER_OTLP_ENDPOINT is not set" });
  assert.equal(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " }).on, false);
  assert.deepEqual(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }), { on: true, protocol: "http/protobuf" });
  assert.deepEqual(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces` }), {
    on: true,
    protocol: "http/protobuf",
  });
  assert.deepEqual(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }), {
    on: true,
    protocol: "http/json",
  });
  // The traces' own variable wins over the general one, as the OpenTelemetry specification says.
  assert.deepEqual(
    tracingSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
    }),
    { on: true, protocol: "http/json" },
  );
});

test("the standard switches turn it off", () => {
  assert.deepEqual(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_SDK_DISABLED: "true" }), {
    on: false,
    reason: "OTEL_SDK_DISABLED=true",
  });
  assert.deepEqual(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: "none" }), {
    on: false,
    reason: "OTEL_TRACES_EXPORTER=none",
  });
  assert.equal(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: "otlp" }).on, true);
});

test("gRPC is refused at start with a message that says what to use", () => {
  assert.throws(
    () => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }),
    (error: unknown) => error instanceof ConfigError && /http\/protobuf or http\/json/.test(error.message) && /4318/.test(error.message),
  );
});

test("with tracing not started, a request gets no span (and costs one test)", () => {
  assert.equal(traceRequest("POST", "/v1/chat/completions", "req_1"), undefined);
});
