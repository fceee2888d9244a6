// POST /v1/messages/count_tokens: what a Messages request would read, for the SDKs' messages.countTokens() and Claude
// Code's context meter.
import { GatewayError } from "@/lib/platform/errors";
import { json, limitText } from "@/lib/platform/http/json";
import { authoriseModel, gatewayRoute } from "@/lib/gateway/pipeline";
import { readTextRequest } from "@/lib/gateway/text-request";
import { countBody } from "./body";

/**
 * count_tokens' own body limit, below the 32 MB of /v1/messages (the vendor takes 32 MB for both): the count is free,
 * and its cost is in the text, not the media. 8 MB holds a 1M-token context of text at ~4 bytes a token twice over,
 * or a few inline images; a larger request can still be sent to /v1/messages, whose reservation counts it.
 */
export const COUNT_TOKENS_BODY_LIMIT = 8 * 1024 * 1024;

/**
 * The gateway's best estimate of the input (not the reservation's upper bound, docs/billing.md); free, so rate-limited
 * on a budget of its own and capped in size (COUNT_TOKENS_BODY_LIMIT).
 */
export const countTokens = gatewayRoute(
  { endpoint: "/v1/messages/count_tokens", dialect: "anthropic", scheme: "x-api-key", limit: "count_tokens" },
  async (context) => {
    let read: Awaited<ReturnType<typeof readTextRequest>>;
    try {
      read = await readTextRequest(context.request, countBody, { watch: null, limit: COUNT_TOKENS_BODY_LIMIT, withBody: false });
    } catch (error) {
      if (!(error instanceof GatewayError) || error.code !== "body_too_large") throw error;
      throw new GatewayError(
        "body_too_large",
        `Request body is larger than the ${limitText(COUNT_TOKENS_BODY_LIMIT)} limit of /v1/messages/count_tokens (counting is free, so its bodies are capped below the 32 MB of /v1/messages); count a shorter request, or send this one to /v1/messages, which reserves for it as it is`,
      );
    }
    const { model, inputTokens } = read;
    await authoriseModel(context.principal, model);
    return json({ input_tokens: inputTokens });
  },
);
