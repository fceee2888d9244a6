// Prometheus metrics (prom-client): requests and latency per endpoint, upstream attempts and their latency per model
// and channel, upstream errors per channel, failovers, channels switched off, tokens and cost per model (counted from ledger rows as they are committed), active streams, and the ledger writer's health
// (settlements waiting, write failures, rows written reduced, dead letters: docs/billing.md, "The ledger writer").
import client from "prom-client";
import { singleton } from "./singleton";

/** Where the waiting-settlements gauge reads its value when scraped (set by lib/money/ledger.ts). */
type LedgerProbe = { waiting: () => number };

function metrics() {
  return singleton("metrics", () => {
    const registry = new client.Registry();
    const ledger: LedgerProbe = { waiting: () => 0 };
    client.collectDefaultMetrics({ register: registry, prefix: "gateway_process_" });
    return {
      registry,
      requests: new client.Counter({
        name: "gateway_requests_total",
        help: "Requests answered, by endpoint and HTTP status",
        labelNames: ["endpoint", "status"],
        registers: [registry],
      }),
      latency: new client.Histogram({
        name: "gateway_request_duration_seconds",
        help: "Time to the response headers, by endpoint",
        labelNames: ["endpoint"],
        buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
        registers: [registry],
      }),
      upstreamErrors: new client.Counter({
        name: "gateway_upstream_errors_total",
        help: "Failed upstream attempts, by channel and cause",
        labelNames: ["channel", "cause"],
        registers: [registry],
      }),
      // The model and channel labels name what the operator configured, never a client's string: an attempt is made only
      // after the model was found priced and the payer's reservation taken (lib/gateway/relay.ts), so label values are
      // bounded by the configuration.
      attempts: new client.Counter({
        name: "gateway_upstream_attempts_total",
        help: "Upstream attempts, by public model, channel and outcome ('ok' or 'error')",
        labelNames: ["model", "channel", "outcome"],
        registers: [registry],
      }),
      attemptLatency: new client.Histogram({
        name: "gateway_upstream_duration_seconds",
        help: "Time from sending an attempt upstream to its answer starting (or failing), by public model and channel",
        labelNames: ["model", "channel"],
        buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
        registers: [registry],
      }),
      failovers: new client.Counter({
        name: "gateway_failovers_total",
        help: "Requests that moved on to another channel after a retryable failure, by public model and the channel left",
        labelNames: ["model", "channel"],
        registers: [registry],
      }),
      channelsDisabled: new client.Counter({
        name: "gateway_channels_disabled_total",
        help: "Channels switched off automatically (the upstream refused the channel's own key), by channel",
        labelNames: ["channel"],
        registers: [registry],
      }),
      tokens: new client.Counter({
        name: "gateway_tokens_total",
        help: "Tokens billed, by model and kind",
        labelNames: ["model", "kind"],
        registers: [registry],
      }),
      cost: new client.Counter({
        name: "gateway_cost_micro_usd_total",
        help: "Cost billed in micro-USD, by model",
        labelNames: ["model"],
        registers: [registry],
      }),
      overReservations: new client.Counter({
        name: "gateway_over_reservation_total",
        help: "Requests an upstream billed past their reservation (charged in full; each one is a gateway bug to report), by model",
        labelNames: ["model"],
        registers: [registry],
      }),
      overReservationMicros: new client.Counter({
        name: "gateway_over_reservation_micro_usd_total",
        help: "Micro-USD billed past reservations, by model",
        labelNames: ["model"],
        registers: [registry],
      }),
      imageDecodes: new client.Counter({
        name: "gateway_image_decodes_total",
        help: "Inline input images fully decoded (after the reservation)",
        registers: [registry],
      }),
      activeStreams: new client.Gauge({ name: "gateway_active_streams", help: "Streaming responses in progress", registers: [registry] }),
      ledger,
      ledgerWaiting: new client.Gauge({
        name: "gateway_ledger_settlements_waiting",
        help: "Settlements not yet written to the ledger (queued, or in a write under way); stays above 0 while the database is unreachable",
        registers: [registry],
        collect() {
          this.set(ledger.waiting());
        },
      }),
      ledgerWriteFailures: new client.Counter({
        name: "gateway_ledger_write_failures_total",
        help: "Failed ledger writes, by cause: 'data' (the database refused a row: the batch is split to find it) or 'unavailable' (retried with backoff)",
        labelNames: ["cause"],
        registers: [registry],
      }),
      ledgerReducedRows: new client.Counter({
        name: "gateway_ledger_reduced_rows_total",
        help: "Ledger rows the database refused as they were and took in a reduced form (ASCII text, detail dropped; money intact)",
        registers: [registry],
      }),
      ledgerDeadLetters: new client.Counter({
        name: "gateway_ledger_dead_letters_total",
        help: "Settlements the database refused even in a reduced form, kept in the LedgerDeadLetter table for an operator (alert on any)",
        registers: [registry],
      }),
    };
  });
}

export function observeRequest(endpoint: string, status: number, startedAt: number): void {
  const current = metrics();
  current.requests.inc({ endpoint, status: String(status) });
  current.latency.observe({ endpoint }, (performance.now() - startedAt) / 1000);
}

export function observeUpstreamError(channel: string, cause: string): void {
  metrics().upstreamErrors.inc({ channel, cause });
}

/** One upstream attempt ended: its answer started (ok) or it failed; `startedAt` is performance.now() at its start. */
export function observeAttempt(model: string, channel: string, ok: boolean, startedAt: number): void {
  const current = metrics();
  current.attempts.inc({ model, channel, outcome: ok ? "ok" : "error" });
  current.attemptLatency.observe({ model, channel }, (performance.now() - startedAt) / 1000);
}

export function observeFailover(model: string, channel: string): void {
  metrics().failovers.inc({ model, channel });
}

export function observeChannelDisabled(channel: string): void {
  metrics().channelsDisabled.inc({ channel });
}

/** The registry's metrics: name, type and label names (tests/unit/grafana-dashboard.test.ts checks the dashboard against them). */
export async function metricLabels(): Promise<Map<string, { type: string; labels: string[] }>> {
  const { registry } = metrics();
  const out = new Map<string, { type: string; labels: string[] }>();
  for (const metric of await registry.getMetricsAsJSON()) {
    const declared = (registry.getSingleMetric(metric.name) as unknown as { labelNames?: string[] } | undefined)?.labelNames ?? [];
    out.set(metric.name, { type: String(metric.type), labels: [...declared] });
  }
  return out;
}

export function observeBilled(row: {
  model: string;
  textInputTokens: number;
  textOutputTokens: number;
  imageInputTokens: number;
  imageOutputTokens: number;
  cost: number;
  kind: string;
}): void {
  if (row.kind !== "request") return;
  const current = metrics();
  const kinds: [string, number][] = [
    ["text_input", row.textInputTokens],
    ["text_output", row.textOutputTokens],
    ["image_input", row.imageInputTokens],
    ["image_output", row.imageOutputTokens],
  ];
  for (const [kind, count] of kinds) if (count) current.tokens.inc({ model: row.model, kind }, count);
  if (row.cost > 0) current.cost.inc({ model: row.model }, row.cost);
}

export function observeOverReservation(model: string, excess: number): void {
  const current = metrics();
  current.overReservations.inc({ model });
  current.overReservationMicros.inc({ model }, excess);
}

export function observeImageDecode(): void {
  metrics().imageDecodes.inc();
}

export function streamStarted(): () => void {
  const gauge = metrics().activeStreams;
  gauge.inc();
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    gauge.dec();
  };
}

/** Tells the waiting-settlements gauge how to count them (lib/money/ledger.ts; read at each scrape, not per request). */
export function reportLedgerWaiting(waiting: () => number): void {
  metrics().ledger.waiting = waiting;
}

export function observeLedgerWriteFailure(cause: "data" | "unavailable"): void {
  metrics().ledgerWriteFailures.inc({ cause });
}

export function observeLedgerReducedRow(): void {
  metrics().ledgerReducedRows.inc();
}

export function observeLedgerDeadLetter(): void {
  metrics().ledgerDeadLetters.inc();
}

export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  const current = metrics();
  return { contentType: current.registry.contentType, body: await current.registry.metrics() };
}
