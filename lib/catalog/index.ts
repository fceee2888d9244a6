// The model catalog: what each public model is, which endpoints serve it and the limits the reservation works with
// (docs/billing.md). Code defaults for the built-in models; an operator's edits are stored in the "catalog"
// setting as per-model overrides and merged over them. A model the catalog does not list but that has a price
// (an operator-added one) gets a generic text entry.
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { cached } from "@/lib/platform/cached";
import { publish } from "@/lib/platform/events";
import {
  type EMBEDDING_MODELS,
  IMAGE_MODEL,
  LONG_CONTEXT_SUFFIX,
  type MESSAGE_MODELS,
  SPEECH_MODEL,
  TEXT_MODEL,
  TRANSCRIPTION_MODEL,
} from "./models";

export type ModelKind = "text" | "image" | "embedding" | "speech" | "transcription";

export type CatalogEntry = {
  id: string;
  kind: ModelKind;
  displayName: string;
  /** Unix seconds, as /v1/models reports it. */
  created: number;
  ownedBy: string;
  /** The /v1 endpoints that serve the model. */
  endpoints: string[];
  /** Input plus output tokens the model accepts. */
  contextWindow: number;
  /** The output cap sent on the client's behalf when a request sets none. */
  defaultOutputTokens: number;
  /** The largest output cap a request may ask for. */
  maxOutputTokens: number;
  /** Other names that mean this model (for example a vendor's own name). */
  aliases: string[];
  /** The upstream model reads `role: "system"` turns inside `messages` as they are. */
  systemInMessages: boolean;
};

const TEXT_ENDPOINTS = ["/v1/chat/completions", "/v1/messages"];
const IMAGE_ENDPOINTS = ["/v1/images/generations", "/v1/images/edits"];

/** Every /v1 endpoint a model can be served on (the catalog's `endpoints`, an operator's override). */
export const MODEL_ENDPOINTS = [
  "/v1/chat/completions",
  "/v1/messages",
  "/v1/images/generations",
  "/v1/images/edits",
  "/v1/responses",
  "/v1/embeddings",
  "/v1/audio/speech",
  "/v1/audio/transcriptions",
] as const;

/** Embeddings: the vendor's dimensions and the most tokens one input may hold (8,192, as the vendor's). */
const EMBEDDING_DEFAULTS: Record<(typeof EMBEDDING_MODELS)[number], { name: string; dimensions: number }> = {
  "std-embedding-3-small": { name: "Std Embedding 3 Small", dimensions: 1536 },
  "std-embedding-3-large": { name: "Std Embedding 3 Large", dimensions: 3072 },
};

/** The vector size of an embedding model (`dimensions` may ask for fewer), or null for another model. */
export function embeddingDimensions(model: string): number | null {
  return (EMBEDDING_DEFAULTS as Record<string, { dimensions: number }>)[model]?.dimensions ?? null;
}

const MESSAGE_DEFAULTS: Record<(typeof MESSAGE_MODELS)[number], { name: string; created: number; maxOutputTokens: number }> = {
  "msg-haiku-4-5-20251001": { name: "Msg Haiku 4.5", created: 1_760_486_400, maxOutputTokens: 64_000 },
  "msg-sonnet-4-6": { name: "Msg Sonnet 4.6", created: 1_771_286_400, maxOutputTokens: 64_000 },
  "msg-opus-4-6": { name: "Msg Opus 4.6", created: 1_770_249_600, maxOutputTokens: 128_000 },
};

/** The 1M-token context of the `[1m]` models; their long-context price tier starts above the base window. */
export const BASE_CONTEXT_WINDOW = 200_000;
export const LONG_CONTEXT_WINDOW = 1_000_000;

function builtIns(): CatalogEntry[] {
  const entries: CatalogEntry[] = [
    {
      id: IMAGE_MODEL,
      kind: "image",
      displayName: "Std Image 2",
      created: 1_745_971_200,
      ownedBy: "gateway",
      endpoints: IMAGE_ENDPOINTS,
      contextWindow: 32_000,
      defaultOutputTokens: 0,
      maxOutputTokens: 0,
      aliases: [],
      systemInMessages: false,
    },
    {
      id: TEXT_MODEL,
      kind: "text",
      displayName: "Std 5.5",
      created: 1_764_547_200,
      ownedBy: "gateway",
      endpoints: [...TEXT_ENDPOINTS, "/v1/responses"],
      contextWindow: 400_000,
      defaultOutputTokens: 4_096,
      maxOutputTokens: 128_000,
      aliases: [],
      systemInMessages: true,
    },
  ];
  const noOutput = { defaultOutputTokens: 0, maxOutputTokens: 0, aliases: [], systemInMessages: false, ownedBy: "gateway" };
  for (const [id, model] of Object.entries(EMBEDDING_DEFAULTS))
    entries.push({
      id,
      kind: "embedding",
      displayName: model.name,
      created: 1_705_953_180,
      endpoints: ["/v1/embeddings"],
      contextWindow: 8_192,
      ...noOutput,
    });
  entries.push({
    id: SPEECH_MODEL,
    kind: "speech",
    displayName: "Std TTS 1",
    created: 1_699_046_015,
    endpoints: ["/v1/audio/speech"],
    // The most characters one request may speak (the vendor's 4,096).
    contextWindow: 4_096,
    ...noOutput,
  });
  entries.push({
    id: TRANSCRIPTION_MODEL,
    kind: "transcription",
    displayName: "Std Transcribe 1",
    created: 1_677_610_602,
    endpoints: ["/v1/audio/transcriptions"],
    contextWindow: 0,
    ...noOutput,
  });
  for (const [id, model] of Object.entries(MESSAGE_DEFAULTS)) {
    const base = {
      kind: "text" as const,
      created: model.created,
      ownedBy: "gateway",
      endpoints: TEXT_ENDPOINTS,
      defaultOutputTokens: 4_096,
      maxOutputTokens: model.maxOutputTokens,
      systemInMessages: true,
    };
    entries.push({ ...base, id, displayName: model.name, contextWindow: BASE_CONTEXT_WINDOW, aliases: [] });
    entries.push({
      ...base,
      id: `${id}${LONG_CONTEXT_SUFFIX}`,
      displayName: `${model.name} (1M context)`,
      contextWindow: LONG_CONTEXT_WINDOW,
      aliases: [],
    });
  }
  return entries;
}

/** What an operator may change per model (the id stays). */
export const catalogOverrideSchema = z.strictObject({
  kind: z.enum(["text", "image", "embedding", "speech", "transcription"]).optional(),
  displayName: z.string().trim().min(1).max(200).optional(),
  created: z.number().int().min(0).optional(),
  ownedBy: z.string().trim().min(1).max(100).optional(),
  endpoints: z.array(z.enum(MODEL_ENDPOINTS)).optional(),
  contextWindow: z.number().int().min(1).max(100_000_000).optional(),
  defaultOutputTokens: z.number().int().min(0).max(10_000_000).optional(),
  maxOutputTokens: z.number().int().min(0).max(10_000_000).optional(),
  aliases: z.array(z.string().trim().min(1).max(200)).max(50).optional(),
  systemInMessages: z.boolean().optional(),
});
export type CatalogOverride = z.infer<typeof catalogOverrideSchema>;

const SETTING_KEY = "catalog";

/** An operator-added model with a price but no catalog entry: a text model with cautious limits. */
function genericEntry(id: string): CatalogEntry {
  return {
    id,
    kind: "text",
    displayName: id,
    created: 0,
    ownedBy: "operator",
    endpoints: TEXT_ENDPOINTS,
    contextWindow: 128_000,
    defaultOutputTokens: 4_096,
    maxOutputTokens: 32_768,
    aliases: [],
    systemInMessages: true,
  };
}

type Loaded = { entries: Map<string, CatalogEntry>; aliases: Map<string, string>; overrides: Record<string, CatalogOverride> };

async function load(): Promise<Loaded> {
  const row = await db().setting.findUnique({ where: { key: SETTING_KEY } });
  const overrides = (row?.value ?? {}) as Record<string, CatalogOverride>;
  const entries = new Map(builtIns().map((entry) => [entry.id, entry]));
  for (const [id, override] of Object.entries(overrides)) {
    const parsed = catalogOverrideSchema.safeParse(override);
    if (!parsed.success) continue;
    entries.set(id, { ...(entries.get(id) ?? genericEntry(id)), ...parsed.data, id });
  }
  const aliases = new Map<string, string>();
  for (const entry of entries.values()) for (const alias of entry.aliases) aliases.set(alias, entry.id);
  return { entries, aliases, overrides };
}

const catalog = cached("catalog", "catalog.changed", load);

/** The entry of a public model name or one of its aliases; `null` when the catalog does not know it. */
export async function catalogEntry(model: string): Promise<CatalogEntry | null> {
  const loaded = await catalog();
  return loaded.entries.get(model) ?? loaded.entries.get(loaded.aliases.get(model) ?? "") ?? null;
}

/** The entry, or a generic text entry for a model the catalog does not list (an operator-added, priced model). */
export async function catalogEntryOrGeneric(model: string): Promise<CatalogEntry> {
  return (await catalogEntry(model)) ?? genericEntry(model);
}

export async function listCatalog(): Promise<CatalogEntry[]> {
  return [...(await catalog()).entries.values()];
}

/** Stores an operator's override of one model (merged over the code default) and tells every instance. */
export async function setCatalogOverride(model: string, override: CatalogOverride | null): Promise<CatalogEntry | null> {
  const current = (await load()).overrides;
  const next = { ...current };
  if (override) next[model] = { ...current[model], ...override };
  else delete next[model];
  await db().setting.upsert({ where: { key: SETTING_KEY }, create: { key: SETTING_KEY, value: next }, update: { value: next } });
  publish({ type: "catalog.changed" });
  return catalogEntry(model);
}
