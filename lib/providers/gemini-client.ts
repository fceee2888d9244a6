// A Gemini client of the text relay (lib/providers/text-relay.ts): the /v1beta endpoints (docs/api.md) send a Chat
// request over any channel, and the answer, in Chat (converted from Messages first for a Messages upstream), is
// written here as Gemini's (lib/dialects/gemini/chat-to-gemini-response.ts) and metered as it is written. A stream goes
// out as Google frames it: SSE with `?alt=sse`, else one JSON array written element by element; a failure mid-stream
// ends it with Google's error object (`{error: {code, message, status}}`) in the same framing, which Google's SDK
// raises as an ApiError.
import { encodeSse } from "@/lib/platform/sse";
import { errorBody, GatewayError } from "@/lib/platform/errors";
import type { OutputMeter } from "@/lib/money/meter";
import { MessagesStreamToChat } from "@/lib/dialects/convert/messages-stream-to-chat";
import { chatCompletionToGemini, ChatStreamToGemini } from "@/lib/dialects/gemini/chat-to-gemini-response";
import type { GeminiResponse } from "@/lib/dialects/gemini/wire";
import type { TextCall } from "./types";

type Json = Record<string, unknown>;

/** The headers of a stream written as one JSON array (no `?alt=sse`). */
export const JSON_ARRAY_STREAM_HEADERS = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
};

/** A whole Chat answer as Gemini's, metered as the client receives it. */
export function geminiWholeAnswer(chat: Json, call: TextCall, meter: OutputMeter): { out: Json; metered: () => number } {
  const out = chatCompletionToGemini(chat, call.publicModel) as unknown as Json;
  return {
    out,
    metered: () => {
      meter.geminiResponse(out);
      return meter.tokens();
    },
  };
}

/**
 * The relay's writer for a Gemini client: each upstream event's Chat chunks (for a Messages upstream, converted to Chat
 * first) as Gemini chunks in the client's framing; `end` the last chunk (and the array's close); `error` the error
 * object that ends a failed stream.
 */
export function geminiWriter(call: TextCall, upstream: "chat" | "messages", meter: OutputMeter) {
  const sse = call.geminiClient?.sse !== false;
  const fromMessages = upstream === "messages" ? new MessagesStreamToChat({ publicModel: call.publicModel, includeUsage: true }) : null;
  const converter = new ChatStreamToGemini({ publicModel: call.publicModel });
  let opened = false;
  /** One element of the stream: an SSE event, or the array's next element (its `[` before the first). */
  const frame = (json: string) => {
    if (sse) return encodeSse({ data: json });
    const text = `${opened ? ",\r\n" : "["}${json}`;
    opened = true;
    return text;
  };
  const send = (chunks: GeminiResponse[]) =>
    chunks.map((chunk) => {
      meter.geminiResponse(chunk);
      return frame(JSON.stringify(chunk));
    });
  return {
    write(data: Json): string[] {
      const chats = fromMessages ? (fromMessages.push(data) as unknown[]) : [data];
      return chats.flatMap((chunk) => send(converter.push(chunk)));
    },
    end(): string[] {
      const tail = send(converter.finish());
      return sse ? tail : [...tail, "]"];
    },
    error(message: string): string {
      const text = frame(JSON.stringify(errorBody(new GatewayError("upstream_error", message), "google")));
      return sse ? text : `${text}]`;
    },
    headers: sse ? undefined : JSON_ARRAY_STREAM_HEADERS,
  };
}
