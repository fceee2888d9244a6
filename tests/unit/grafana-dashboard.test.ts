// The Grafana dashboard (docs/grafana-dashboard.json) against the gateway's Prometheus registry (lib/platform/metrics.ts):
// every metric a panel or a template variable queries exists, under the name prom-client gives it (a histogram's
// `_bucket`, `_sum` and `_count` series), and every label it matches on or groups by is one the metric carries.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { metricLabels } from "@/lib/platform/metrics";

type Registry = Awaited<ReturnType<typeof metricLabels>>;

/** Labels Prometheus adds to every scraped series (the scrape target), and a histogram bucket's bound. */
const SCRAPE_LABELS = new Set(["instance", "job"]);
const HISTOGRAM_SERIES = ["_bucket", "_sum", "_count"] as const;
const PROMQL_WORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset"]);

/** The registry metric a series name belongs to, and whether the series is a histogram bucket. */
function metricOf(series: string, registry: Registry): { name: string; bucket: boolean } | string {
  if (registry.has(series)) return { name: series, bucket: false };
  for (const suffix of HISTOGRAM_SERIES) {
    if (!series.endsWith(suffix)) continue;
    const name = series.slice(0, -suffix.length);
    const metric = registry.get(name);
    if (metric?.type === "histogram") return { name, bucket: suffix === "_bucket" };
    if (metric) return `${series}: '${name}' is a ${metric.type}, which has no '${suffix}' series`;
  }
  return `${series} is not a metric of lib/platform/metrics.ts`;
}

/** What is wrong with one PromQL expression (or a label_values() query) against the registry; empty when nothing. */
function problems(expr: string, registry: Registry): string[] {
  const found: string[] = [];
  // Grafana's variables ($__rate_interval, $model ...) stand inside range brackets and quoted values only.
  const text = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const used: { name: string; bucket: boolean }[] = [];
  for (const match of text.matchAll(/\b(gateway_[a-z0-9_]+)\s*(\{[^}]*\})?/g)) {
    const metric = metricOf(match[1]!, registry);
    if (typeof metric === "string") {
      found.push(metric);
      continue;
    }
    used.push(metric);
    const labels = registry.get(metric.name)!.labels;
    for (const matcher of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)) {
      const label = matcher[1]!;
      if (!labels.includes(label) && !SCRAPE_LABELS.has(label) && !(metric.bucket && label === "le"))
        found.push(`${match[1]} has no label '${label}' (it has: ${labels.join(", ") || "none"})`);
    }
  }
  if (!used.length) found.push(`no gateway metric in: ${expr}`);
  // Grouping (by/without) and label_values(metric, label): the label is on every metric the expression uses.
  const grouped = [...text.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((match) => match[1]!.split(","));
  const valued = [...text.matchAll(/label_values\(\s*[a-z0-9_]+(?:\{[^}]*\})?\s*,\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)/g)].map(
    (match) => match[1]!,
  );
  for (const label of [...grouped, ...valued].map((name) => name.trim()).filter(Boolean)) {
    if (PROMQL_WORDS.has(label) || SCRAPE_LABELS.has(label)) continue;
    for (const metric of used) {
      if (label === "le" && metric.bucket) continue;
      if (!registry.get(metric.name)!.labels.includes(label)) found.push(`${metric.name} has no label '${label}' to group by`);
    }
  }
  return found;
}

type Panel = { title?: string; type: string; panels?: Panel[]; targets?: { expr?: string }[] };
type Dashboard = {
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; type: string; query?: string | { query: string }; definition?: string }[] };
};

function dashboard(): Dashboard {
  return JSON.parse(readFileSync(path.join(import.meta.dirname, "../../docs/grafana-dashboard.json"), "utf8")) as Dashboard;
}

function panelsOf(list: Panel[]): Panel[] {
  return list.flatMap((panel) => [panel, ...panelsOf(panel.panels ?? [])]);
}

test("the dashboard parses, picks a Prometheus data source, and filters by model and channel", () => {
  const board = dashboard();
  assert.ok(board.schemaVersion >= 36, "a dashboard current Grafana reads without migrating");
  const variables = new Map(board.templating.list.map((variable) => [variable.name, variable]));
  assert.equal(variables.get("datasource")?.type, "datasource");
  assert.equal((variables.get("datasource") as { query?: string }).query, "prometheus");
  for (const name of ["model", "channel"]) {
    const variable = variables.get(name);
    assert.equal(variable?.type, "query", `a ${name} variable`);
    assert.match(variable!.definition ?? "", new RegExp(`^label_values\\(gateway_[a-z_]+, ${name}\\)$`));
  }
  const panels = panelsOf(board.panels).filter((panel) => panel.type !== "row");
  assert.ok(panels.length >= 20, `${panels.length} panels`);
  for (const panel of panels)
    assert.ok(panel.targets?.length && panel.targets.every((target) => target.expr), `'${panel.title}' queries something`);
});

test("every metric and label a panel or a variable queries exists in the gateway's registry", async () => {
  const registry = await metricLabels();
  const board = dashboard();
  const found: string[] = [];
  for (const panel of panelsOf(board.panels)) {
    for (const target of panel.targets ?? [])
      for (const problem of problems(target.expr ?? "", registry)) found.push(`'${panel.title}': ${problem}`);
  }
  for (const variable of board.templating.list) {
    if (variable.type !== "query") continue;
    for (const problem of problems(variable.definition ?? "", registry)) found.push(`variable ${variable.name}: ${problem}`);
  }
  assert.deepEqual(found, []);
  // The dashboard covers the gateway's own metrics: each one appears in some panel.
  const exprs = panelsOf(board.panels).flatMap((panel) => (panel.targets ?? []).map((target) => target.expr ?? ""));
  const unused = [...registry.keys()]
    .filter((name) => !name.startsWith("gateway_process_"))
    .filter((name) => !exprs.some((expr) => new RegExp(`\\b${name}(?:_bucket|_sum|_count)?\\b`).test(expr)));
  assert.deepEqual(unused, []);
});

test("the check refuses a metric, a series or a label the registry does not have", async () => {
  const registry = await metricLabels();
  assert.deepEqual(problems('sum by (model) (rate(gateway_failovers_total{channel=~"$channel"}[$__rate_interval]))', registry), []);
  assert.match(problems("rate(gateway_failover_total[5m])", registry).join(), /gateway_failover_total is not a metric/);
  assert.match(problems("rate(gateway_cost_micro_usd_total_bucket[5m])", registry).join(), /is not a metric|has no '_bucket'/);
  assert.match(problems("rate(gateway_requests_total_count[5m])", registry).join(), /is a counter/);
  assert.match(problems('rate(gateway_cost_micro_usd_total{channel="a"}[5m])', registry).join(), /no label 'channel'/);
  assert.match(problems("sum by (channel) (rate(gateway_tokens_total[5m]))", registry).join(), /no label 'channel' to group by/);
  assert.match(problems("histogram_quantile(0.9, sum by (le) (rate(gateway_requests_total[5m])))", registry).join(), /no label 'le'/);
  assert.match(problems("label_values(gateway_cost_micro_usd_total, channel)", registry).join(), /no label 'channel'/);
  assert.deepEqual(problems("label_values(gateway_upstream_attempts_total, model)", registry), []);
});
