// The body of POST /v1/embeddings (OpenAI's shape, docs/api.md §4), checked field by field with the vendor's limits:
// each refusal a 400 naming the field (`input`, `input[3]`, `dimensions`), before anything is reserved. Every input's
// tokens are counted whole (o200k, lib/money/tokens.ts): the reservation, and the charge when the upstream reports no
// usage (docs/billing.md). Large bodies are prepared on a body worker as the text endpoints' are
// (lib/gateway/text-request.ts, kind "embeddings").
import { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import { countAllTextTokens, newCountStats } from "@/lib/money/tokens";
import type { EmbeddingsInputs } from "@/lib/providers/embeddings-types";
import { defineBodyKind } from "@/lib/gateway/text-request";

/** The vendor's limits: inputs per request, tokens per input, tokens per request. */
export const MAX_EMBEDDING_INPUTS = 2048;
export const MAX_INPUT_TOKENS = 8192;
export const MAX_REQUEST_TOKENS = 300_000;

/**
 * The body limit. 300,000 tokens are ~1.2 MB of English, ~2 MB as token ids ("199999," is 7 bytes) or ~1.8 MB of CJK
 * with every character escaped: 8 MB holds any request the token limits allow, with room to spare.
 */
export const EMBEDDINGS_BODY_LIMIT = 8 * 1024 * 1024;

/** The inputs, in order; `bare` when `input` was one string or one token array rather than a list of them. */
export type EmbeddingsInput = ({ kind: "text"; texts: string[] } | { kind: "tokens"; tokens: number[][] }) & { bare: boolean };

export type EmbeddingsRequest = {
  model: string;
  input: EmbeddingsInput;
  encodingFormat: "float" | "base64";
  /** The client's own `dimensions`, checked against the model by the handler. */
  dimensions: number | undefined;
  user: string | undefined;
};

const tokenArray = z.array(z.number().int().min(0)).min(1).max(MAX_INPUT_TOKENS);

/** The body as the OpenAPI document describes it; parseEmbeddingsRequest is what checks it (with the messages below). */
export const embeddingsRequestSchema = z.strictObject({
  model: z.string().min(1),
  input: z.union([
    z.string().min(1),
    z.array(z.string().min(1)).min(1).max(MAX_EMBEDDING_INPUTS),
    tokenArray,
    z.array(tokenArray).min(1).max(MAX_EMBEDDING_INPUTS),
  ]),
  encoding_format: z.enum(["float", "base64"]).optional(),
  dimensions: z.number().int().min(1).optional(),
  user: z.string().optional(),
});

const FIELDS = ["model", "input", "encoding_format", "dimensions", "user"];

function refuse(param: string, message: string): GatewayError {
  return new GatewayError("invalid_request", message, { param });
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

const INPUT_SHAPES = "a string, an array of strings, an array of token ids, or an array of token-id arrays";

function isTokenId(value: unknown): boolean {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** A token-id array at `param`: its ids whole numbers from 0, at least one, at most MAX_INPUT_TOKENS. */
function checkTokens(tokens: unknown[], param: string): number[] {
  if (!tokens.length) throw refuse(param, `Invalid '${param}': an empty token array cannot be embedded`);
  if (tokens.length > MAX_INPUT_TOKENS)
    throw refuse(
      param,
      `Invalid '${param}': an input may hold at most ${MAX_INPUT_TOKENS.toLocaleString("en")} tokens; this one has ${tokens.length.toLocaleString("en")}`,
    );
  for (let position = 0; position < tokens.length; position++) {
    if (!isTokenId(tokens[position]))
      throw refuse(
        param,
        `Invalid '${param}': token ids are whole numbers from 0; position ${position} holds ${String(JSON.stringify(tokens[position])).slice(0, 40)}`,
      );
  }
  return tokens as number[];
}

function checkInput(input: unknown): EmbeddingsInput {
  if (input === undefined || input === null) throw refuse("input", `Missing 'input': the text to embed, as ${INPUT_SHAPES}`);
  if (typeof input === "string") {
    if (!input) throw refuse("input", "Invalid 'input': an empty string cannot be embedded");
    return { kind: "text", texts: [input], bare: true };
  }
  if (!Array.isArray(input)) throw refuse("input", `Invalid 'input': expected ${INPUT_SHAPES}; got ${kindOf(input)}`);
  if (!input.length) throw refuse("input", "Invalid 'input': an empty array; give at least one input");
  const first = input[0];
  // One token array: the whole of `input` is one input.
  if (typeof first === "number") return { kind: "tokens", tokens: [checkTokens(input, "input")], bare: true };
  if (input.length > MAX_EMBEDDING_INPUTS)
    throw refuse("input", `Invalid 'input': at most ${MAX_EMBEDDING_INPUTS} inputs per request; got ${input.length.toLocaleString("en")}`);
  if (typeof first === "string") {
    for (const [index, text] of input.entries()) {
      if (typeof text !== "string")
        throw refuse(`input[${index}]`, `Invalid 'input[${index}]': expected a string, as every input before it; got ${kindOf(text)}`);
      if (!text) throw refuse(`input[${index}]`, `Invalid 'input[${index}]': an empty string cannot be embedded`);
    }
    return { kind: "text", texts: input as string[], bare: false };
  }
  if (Array.isArray(first)) {
    const tokens: number[][] = [];
    for (const [index, item] of input.entries()) {
      if (!Array.isArray(item))
        throw refuse(
          `input[${index}]`,
          `Invalid 'input[${index}]': expected an array of token ids, as every input before it; got ${kindOf(item)}`,
        );
      tokens.push(checkTokens(item, `input[${index}]`));
    }
    return { kind: "tokens", tokens, bare: false };
  }
  throw refuse("input[0]", `Invalid 'input[0]': expected a string, a token id or an array of token ids; got ${kindOf(first)}`);
}

/** The body's fields, checked (the model's own limits, `dimensions` against its size, are the handler's). */
export function parseEmbeddingsRequest(raw: Record<string, unknown>): EmbeddingsRequest {
  for (const field of Object.keys(raw)) {
    if (!FIELDS.includes(field))
      throw refuse(field, `Unknown field '${field.slice(0, 100)}': /v1/embeddings takes ${FIELDS.map((name) => `'${name}'`).join(", ")}`);
  }
  if (raw.model === undefined || raw.model === null)
    throw refuse("model", "Missing 'model': name an embedding model, such as 'std-embedding-3-small'");
  if (typeof raw.model !== "string" || !raw.model)
    throw refuse("model", `Invalid 'model': expected a model name; got ${kindOf(raw.model)}`);
  const input = checkInput(raw.input);
  const format = raw.encoding_format ?? "float";
  if (format !== "float" && format !== "base64")
    throw refuse("encoding_format", `Invalid 'encoding_format': 'float' or 'base64'; got ${String(JSON.stringify(format)).slice(0, 40)}`);
  const dimensions = raw.dimensions ?? undefined;
  if (dimensions !== undefined && !(typeof dimensions === "number" && Number.isSafeInteger(dimensions) && dimensions >= 1))
    throw refuse(
      "dimensions",
      `Invalid 'dimensions': a whole number from 1 to the model's vector size; got ${String(JSON.stringify(dimensions)).slice(0, 40)}`,
    );
  const user = raw.user ?? undefined;
  if (user !== undefined && typeof user !== "string") throw refuse("user", `Invalid 'user': expected a string; got ${kindOf(user)}`);
  return { model: raw.model, input, encodingFormat: format, dimensions, user };
}

/** How refusals name the inputs: one input's field (`input[3]`, `requests[3].content`), and the field of them all. */
export type InputNames = { item: (index: number) => string; all: string };

/** OpenAI's: `input` when it was one input, else `input[3]`. */
export function openaiInputNames(input: EmbeddingsInput): InputNames {
  return { item: (index) => (input.bare ? "input" : `input[${index}]`), all: "input" };
}

/**
 * Each input's tokens: a token array's length, a text's o200k tokens counted whole. Counting stops at the first input
 * past MAX_INPUT_TOKENS or once the request passes MAX_REQUEST_TOKENS (refused either way), so the work is bounded by
 * the limits rather than by the body.
 */
export function countInputs(input: EmbeddingsInputs, names: InputNames): number[] {
  const counts: number[] = [];
  let total = 0;
  const items = input.kind === "text" ? input.texts : input.tokens;
  for (const [index, item] of items.entries()) {
    const room = Math.min(MAX_INPUT_TOKENS, MAX_REQUEST_TOKENS - total);
    const count = typeof item === "string" ? countAllTextTokens(item, room) : item.length;
    const param = names.item(index);
    if (count > MAX_INPUT_TOKENS)
      throw refuse(
        param,
        `Invalid '${param}': an input may hold at most ${MAX_INPUT_TOKENS.toLocaleString("en")} tokens; this one has more`,
      );
    total += count;
    if (total > MAX_REQUEST_TOKENS)
      throw refuse(
        names.all,
        `Invalid '${names.all}': a request may hold at most ${MAX_REQUEST_TOKENS.toLocaleString("en")} tokens in all; these inputs pass it at '${param}'`,
      );
    counts.push(count);
  }
  return counts;
}

/** /v1/embeddings' body as lib/gateway/text-request.ts reads it: its fields checked and its inputs counted. A worker
 *  imports this module for a large body. */
export const embeddingsBody = defineBodyKind(import.meta.url, "embeddingsBody", (raw) => {
  const request = parseEmbeddingsRequest(raw);
  const inputCounts = countInputs(request.input, openaiInputNames(request.input));
  const inputTokens = inputCounts.reduce((sum, count) => sum + count, 0);
  return { body: raw, inputTokens, stats: newCountStats(), model: request.model, inputCounts };
});
