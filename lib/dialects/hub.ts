// Chat Completions is the hub for vendors outside Anthropic's family (lib/dialects/README.md): a vendor dialect
// (Gemini, Converse) has one converter pair with Chat. Its answer converter fills in the shapes below, and the
// relay (lib/providers/text-relay.ts) takes it from there as it takes a Chat Completions upstream: it meters what
// reaches the client, converts on to Messages for a Messages client, and settles on the usage reported here.
import type { ChatCompletion, ChatCompletionChunk } from "./chat/wire";

/**
 * Usage as the vendor reported it, in the gateway's terms: fresh input apart from cache reads and writes, and output
 * including reasoning ("thinking") tokens. A part the vendor did not report stays undefined (never 0 by default:
 * an answer without usage is billed by the meter, docs/billing.md).
 */
export type HubUsage = {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
};

/** A whole vendor answer as a Chat completion, and the usage it reported. */
export type HubAnswer = { completion: ChatCompletion; usage: HubUsage };

/**
 * One streamed vendor answer read as Chat Completions chunks. The relay hands each upstream event's parsed data in,
 * with its event type where the vendor names events (Converse's `:event-type`; Gemini's SSE events are unnamed),
 * and sends the chunks it gets back.
 */
export interface StreamToChat {
  /** The chunks for one upstream event (none is fine). Throws GatewayError("upstream_error") for a malformed event
   *  or an error the vendor sent mid-stream. */
  push(data: unknown, eventType?: string): ChatCompletionChunk[];
  /** The chunks to send after the upstream's clean end, once `complete` (its finish chunk, if not sent yet, and a
   *  usage chunk `{choices: [], usage}` when usage was reported). Not called for a cut stream. */
  finish(): ChatCompletionChunk[];
  /** The vendor's terminal event arrived (Gemini: a candidate with a finishReason, or a blocked prompt; Converse:
   *  `messageStop` and then `metadata`). */
  readonly complete: boolean;
  /** What the vendor reported so far (cumulative: the latest report wins). */
  readonly usage: HubUsage;
}
