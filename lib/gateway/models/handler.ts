// GET /v1/models and GET /v1/models/{id}: what a key may call, for the SDKs' models.list() and models.retrieve() and
// for the tools that fill a model picker from the list (Open WebUI, LobeChat, LangChain). Both SDKs call the same /v1/models: a
// caller that speaks Anthropic (x-api-key or anthropic-version) gets Anthropic's shape, everyone else OpenAI's.
import { GatewayError } from "@/lib/platform/errors";
import { json } from "@/lib/platform/http/json";
import { groupOf } from "@/lib/money/prices";
import { catalogEntryOrGeneric, type CatalogEntry } from "@/lib/catalog";
import { gatewayRoute, type GatewayContext } from "@/lib/gateway/pipeline";

/** The models the key's group allows (and its own list, when it has one), in the group's order, with their catalog entries. */
export async function allowedModels(context: GatewayContext): Promise<CatalogEntry[]> {
  const group = await groupOf(context.principal.group);
  const own = context.principal.models;
  const allowed = [...(group?.models ?? [])].filter((model) => !own.length || own.includes(model));
  return Promise.all(allowed.map((model) => catalogEntryOrGeneric(model)));
}

function openaiModel(entry: CatalogEntry) {
  return { id: entry.id, object: "model", created: entry.created, owned_by: entry.ownedBy };
}

function anthropicModel(entry: CatalogEntry) {
  return { type: "model", id: entry.id, display_name: entry.displayName, created_at: new Date(entry.created * 1000).toISOString() };
}

/** Anthropic's list pages with `limit` (1–1000, default 20), `after_id` and `before_id`. */
function anthropicPage(entries: CatalogEntry[], url: URL) {
  const limit = Math.min(Math.max(Number(url.searchParams.get("limit")) || 20, 1), 1000);
  const after = url.searchParams.get("after_id");
  const before = url.searchParams.get("before_id");
  let start = 0;
  let end = entries.length;
  if (after !== null) start = entries.findIndex((entry) => entry.id === after) + 1;
  if (before !== null)
    end = Math.max(
      0,
      entries.findIndex((entry) => entry.id === before),
    );
  const page =
    before !== null && after === null
      ? entries.slice(Math.max(start, end - limit), end)
      : entries.slice(start, Math.min(end, start + limit));
  const data = page.map(anthropicModel);
  const hasMore = before !== null && after === null ? end - limit > start : start + limit < end;
  return { data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

export const listModels = gatewayRoute({ endpoint: "/v1/models", dialect: "caller", scheme: "either" }, async (context) => {
  const entries = await allowedModels(context);
  if (context.dialect === "anthropic") return json(anthropicPage(entries, new URL(context.request.url)));
  return json({ object: "list", data: entries.map(openaiModel) });
});

export const retrieveModel = gatewayRoute({ endpoint: "/v1/models/{id}", dialect: "caller", scheme: "either" }, async (context) => {
  const raw = new URL(context.request.url).pathname.slice("/v1/models/".length).replace(/\/$/, "");
  let id = raw;
  try {
    id = decodeURIComponent(raw);
  } catch {
    id = raw;
  }
  const entry = (await allowedModels(context)).find((candidate) => candidate.id === id);
  if (!entry) {
    const shown = id.length > 100 ? `${id.slice(0, 100)}…` : id;
    throw new GatewayError(
      "model_not_found",
      `The model '${shown}' does not exist or this key may not use it; GET /v1/models lists the models it may use`,
      { param: "model" },
    );
  }
  return json(context.dialect === "anthropic" ? anthropicModel(entry) : openaiModel(entry));
});
