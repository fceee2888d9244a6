// The reservation of a text request: an upper bound on what the upstream can bill for it (docs/billing.md).
// Input: the dialect's count (lib/money/tokens.ts) with a margin for a tokenizer that is not the vendor's, and
// never less than the request's size at four bytes per token. Output: the cap the upstream receives. Server tools:
// their uses are capped in the request (`max_uses`) and priced per use; their results are reserved as input.
import { GatewayError } from "@/lib/platform/errors";
import { AUTO_SIZE } from "@/lib/images/size";
import type { ImageInfo } from "@/lib/images/inspect";
import type { ResponsesRequest } from "@/lib/wire/responses-request";
import { imageUsageUpperBound, PARTIAL_IMAGE_TOKENS } from "./image-usage";
import { costOf, textReservation, type Price } from "./prices";
import type { CountStats } from "./tokens";

/** The gateway counts with o200k_base; a vendor's tokenizer can count the same text up to ~20% higher. */
export const INPUT_ESTIMATE_FACTOR = 1.2;
/** Whatever the tokenizer, a request's text is reserved at no fewer tokens than its bytes / 4 (media excepted). */
export const BYTES_PER_TOKEN_FLOOR = 4;
/** What the gateway's own rewriting can add to a request (a converted dialect, the model name, the output cap). */
const REQUEST_ALLOWANCE_TOKENS = 32;
const ITEM_ALLOWANCE_TOKENS = 16;

/** The input tokens reserved for a request whose dialect's count is `counted` (see the file comment). */
export function textInputBound(counted: number, request: { bytes: number; items: number }, stats: CountStats): number {
  const byTokens = Math.ceil(counted * INPUT_ESTIMATE_FACTOR);
  const bySize = Math.ceil(Math.max(0, request.bytes - stats.mediaChars) / BYTES_PER_TOKEN_FLOOR);
  return Math.max(byTokens, bySize) + stats.imageHeadroom + REQUEST_ALLOWANCE_TOKENS + ITEM_ALLOWANCE_TOKENS * request.items;
}

/** The input-price multiplier the request can trigger: a prompt-cache write costs more than fresh input. */
export function inputMultiplier(price: Price, stats: CountStats): number {
  if (stats.cacheWrite === "1h") return Math.max(price.cacheWrite, price.cacheWrite1h);
  if (stats.cacheWrite === "5m") return price.cacheWrite;
  return 1;
}

// ------------------------------------------------------------------------------------------- server tools

/** Uses of a server tool allowed when the request sets no `max_uses`; the gateway sends this cap upstream. */
export const DEFAULT_SERVER_TOOL_USES = 5;
/** Input tokens reserved per server tool use for what it brings back (search results, a fetched page). */
export const SERVER_TOOL_RESULT_TOKENS = 10_000;
/** Tools of the Messages API that the client runs: the vendor adds their definitions (up to ~1,000 tokens each). */
const CLIENT_TOOL_NAMES: ReadonlySet<string> = new Set(["bash", "text_editor", "computer", "memory"]);
const CLIENT_TOOL_TOKENS = 1_500;

export type ServerToolPlan = {
  /** Uses allowed per tool name, priced per use. */
  uses: Record<string, number>;
  /** Input tokens to reserve for tool results and vendor-added definitions. */
  inputTokens: number;
  /** Sampling passes the vendor may bill the whole input for (one, plus one after each tool use). */
  passes: number;
};

/**
 * Server tools of a Messages request (`tools[i].type` such as `web_search_20250305`). Each must have a per-use price
 * on the model, else the request is refused; its `max_uses` is set when missing (and `max_content_tokens` for web
 * fetch), so the upstream receives the cap the reservation counted. Rewrites `tools` in place.
 */
export function planServerTools(tools: unknown, price: Price, model: string): ServerToolPlan {
  const plan: ServerToolPlan = { uses: {}, inputTokens: 0, passes: 1 };
  if (!Array.isArray(tools)) return plan;
  for (const [index, tool] of tools.entries()) {
    if (typeof tool !== "object" || tool === null) continue;
    const record = tool as Record<string, unknown>;
    const type = record.type;
    if (type === undefined || type === null || type === "custom") continue;
    const name = String(type).replace(/_\d{8}$/, "");
    if (CLIENT_TOOL_NAMES.has(name)) {
      plan.inputTokens += CLIENT_TOOL_TOKENS;
      continue;
    }
    const perUse = price.toolPrices[name];
    if (perUse === undefined) {
      throw new GatewayError(
        "invalid_request",
        `The server tool '${String(type).slice(0, 60)}' (tools[${index}]) is not available for '${model}': the vendor bills it per use and no per-use price is set for it here. An operator can set one in the model's prices (toolPrices).`,
        { param: `tools[${index}].type` },
      );
    }
    const asked = record.max_uses;
    const uses = typeof asked === "number" && Number.isInteger(asked) && asked > 0 ? asked : DEFAULT_SERVER_TOOL_USES;
    record.max_uses = uses;
    let resultTokens = SERVER_TOOL_RESULT_TOKENS;
    if (name === "web_fetch") {
      const limit = record.max_content_tokens;
      resultTokens = typeof limit === "number" && Number.isInteger(limit) && limit > 0 ? limit : SERVER_TOOL_RESULT_TOKENS;
      record.max_content_tokens = resultTokens;
    }
    plan.uses[name] = (plan.uses[name] ?? 0) + uses;
    plan.inputTokens += uses * resultTokens;
    plan.passes += uses;
  }
  return plan;
}

/** The refusal hint of a text request: the largest output cap the money left would cover. */
export function outputCapHint(field: string, left: number, fixedCost: number, outputRate: number): string | null {
  if (outputRate <= 0) return null;
  const tokens = Math.floor((left - fixedCost) / outputRate);
  if (tokens >= 1) return `Set ${field} to ${tokens} or less to fit what is left`;
  return "The input alone costs more than what is left";
}

// ----------------------------------------------------------------------------------------------- /v1/responses

/**
 * The limits of one response, gateway-wide: the reservation counts them and every path enforces them (the tool loop
 * counts its rounds and images, a native upstream receives them as max_output_tokens and max_tool_calls).
 */
export const RESPONSES_LIMITS = {
  /** Text model calls per response: enough for four images one call at a time plus the answer. */
  rounds: 6,
  /** Images per response (docs/api.md §8: several only through repeated tool calls). */
  images: 4,
  /** Output cap of each text model call: tool calls and a short answer. */
  turnOutputTokens: 1_024,
} as const;

/** Per text model call, on top of the client's input: the tool's instructions and a tool result fed back. */
const ROUND_INPUT_ALLOWANCE = 2_000;
/** The most a rewritten image prompt is expected to cost as the image model's text input. */
const REVISED_PROMPT_ALLOWANCE = 1_000;

/**
 * The most this request can cost, reserved before anything goes upstream (docs/billing.md): every text model call at
 * its output cap, each reading the input bound plus what earlier calls wrote and their tool results; and the image
 * limit's worth of images at the requested size with `auto` quality as high, each an edit of every input image when
 * there are any, plus their partial images. The settlement refunds the difference.
 */
export function responsesUpperBound(
  request: ResponsesRequest,
  inputs: ImageInfo[],
  inputBound: number,
  textPrice: Price,
  imagePrice: Price,
): number {
  const { rounds, images, turnOutputTokens } = RESPONSES_LIMITS;
  // Call r (from 0) reads the input, the allowance, and the r earlier calls' output and tool results.
  const textInput =
    rounds * (inputBound + ROUND_INPUT_ALLOWANCE) + ((rounds * (rounds - 1)) / 2) * (turnOutputTokens + ROUND_INPUT_ALLOWANCE);
  const text = textReservation(textPrice, { inputTokens: textInput, outputTokens: turnOutputTokens * rounds });
  const { width, height } = request.tool.size.auto ? AUTO_SIZE : request.tool.size;
  const perImage = imageUsageUpperBound({ prompt: "", width, height, quality: request.tool.quality, inputs });
  const partials = Number(request.tool.fields.partial_images ?? 0) * PARTIAL_IMAGE_TOKENS;
  const image =
    costOf(
      { ...perImage, imageOutputTokens: perImage.imageOutputTokens + partials, textInputTokens: REVISED_PROMPT_ALLOWANCE },
      imagePrice,
    ) * images;
  return text + image;
}
