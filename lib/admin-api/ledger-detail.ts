// One ledger row in full (GET /api/admin/usage/{id}; docs/api.md, "The operator's ledger"): its timing, its tokens
// by kind, the price that charged it (the model's price row when its version is still in force, the price modifiers
// and the output rule), the channel that served it and the channels tried before it with their errors.
import { db } from "@/lib/platform/db/client";
import { GatewayError } from "@/lib/platform/errors";
import { json } from "@/lib/platform/http/json";
import { flushLedger } from "@/lib/money/ledger";
import { adminRoute } from "./route";

type Detail = Record<string, unknown>;

const asRecord = (value: unknown): Detail => (value && typeof value === "object" && !Array.isArray(value) ? (value as Detail) : {});
const asNumber = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

/** The counts of a row, each with what it counts; the kinds it has none of are left out (input and output always). */
function countsOf(row: { [key: string]: unknown }, detail: Detail) {
  const counts: { kind: string; label: string; count: number }[] = [
    { kind: "textInput", label: "Input tokens", count: Number(row.textInputTokens) },
    { kind: "cacheRead", label: "Cached input tokens (read)", count: Number(row.cacheReadTokens) },
    { kind: "cacheWrite", label: "Cache write tokens", count: Number(row.cacheWriteTokens) },
    { kind: "cacheWrite1h", label: "of which kept 1 hour", count: asNumber(detail.cacheWrite1hTokens) ?? 0 },
    { kind: "textOutput", label: "Output tokens", count: Number(row.textOutputTokens) },
    { kind: "imageInput", label: "Image input tokens", count: Number(row.imageInputTokens) },
    { kind: "imageOutput", label: "Image output tokens", count: Number(row.imageOutputTokens) },
    { kind: "characters", label: "Characters spoken", count: asNumber(detail.characters) ?? 0 },
    { kind: "audioSeconds", label: "Seconds of audio", count: asNumber(detail.audioSeconds) ?? 0 },
  ];
  for (const [tool, uses] of Object.entries(asRecord(detail.toolUses)))
    if (asNumber(uses)) counts.push({ kind: `tool:${tool}`, label: `${tool} uses`, count: asNumber(uses)! });
  return counts.filter((entry) => entry.count || entry.kind === "textInput" || entry.kind === "textOutput");
}

function failoversOf(detail: Detail) {
  if (!Array.isArray(detail.failovers)) return [];
  return detail.failovers.map((entry) => {
    const failover = asRecord(entry);
    return {
      channelId: typeof failover.channelId === "string" ? failover.channelId : null,
      channel: typeof failover.channel === "string" ? failover.channel : "?",
      status: asNumber(failover.status) ?? 0,
      error: typeof failover.error === "string" ? failover.error : "",
      ms: asNumber(failover.ms),
    };
  });
}

export const getUsageRow = adminRoute(async (_request, params) => {
  await flushLedger();
  const row = await db().usageLog.findUnique({ where: { id: params.id } });
  if (!row) throw new GatewayError("not_found", "No ledger row with this id");
  const [user, key, price] = await Promise.all([
    db().user.findUnique({ where: { id: row.userId }, select: { email: true } }),
    row.keyId ? db().apiKey.findUnique({ where: { id: row.keyId }, select: { name: true, prefix: true } }) : null,
    row.kind === "request" && row.model ? db().modelPrice.findUnique({ where: { model: row.model } }) : null,
  ]);
  const detail = asRecord(row.detail);
  const modifiers = Object.entries(asRecord(detail.priceModifiers))
    .filter((entry): entry is [string, number] => asNumber(entry[1]) !== null)
    .map(([name, multiplier]) => ({ name, multiplier }));
  const parts = Array.isArray(detail.parts)
    ? detail.parts.map((part) => ({ model: String(asRecord(part).model ?? ""), cost: asNumber(asRecord(part).cost) ?? 0 }))
    : [];
  return json({
    row,
    userEmail: user?.email ?? null,
    keyName: key?.name ?? null,
    timing: {
      queueMs: row.queueMs || null,
      firstByteMs: row.firstByteMs || null,
      totalMs: row.kind === "request" ? row.latencyMs : null,
    },
    counts: countsOf(row, detail),
    pricing: {
      priceVersion: row.priceVersion,
      /** The model's price row when the version that charged this row is still in force; null when it changed since. */
      price: price && price.version === row.priceVersion ? price : null,
      currentVersion: price?.version ?? null,
      modifiers,
      /** How the output was counted: the upstream's usage report, or the gateway's meter of what it delivered. */
      rule: detail.rule === "usage" || detail.rule === "meter" ? detail.rule : null,
      parts,
    },
    failovers: failoversOf(detail),
  });
});
