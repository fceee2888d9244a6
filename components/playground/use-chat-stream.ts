"use client";
// Reads a streamed chat answer into the conversation the Chat panel shows, over Chat Completions (Bearer key) or
// Messages (x-api-key): the text as it arrives, the tokens, the time taken, whether the simulator made it, and the
// cost read back from the ledger.
import { useEffect, useRef, useState } from "react";
import { errorFrom, type ApiError } from "@/lib/portal/api";
import { findLedgerRow, type ChatTurn } from "@/lib/portal/playground";
import { readEventStream } from "@/lib/portal/sse";
import type { SendRequest } from "./shared";

export type Shown = ChatTurn & {
  id: number;
  streaming?: boolean;
  simulated?: boolean;
  inputTokens?: number;
  outputTokens?: number;
  cost?: number | null;
  latencyMs?: number;
  failed?: boolean;
};

const SIMULATED_PREFIX = "(simulated)";

export type ChatStream = {
  turns: Shown[];
  streaming: boolean;
  error: ApiError | Error | null;
  /** Sends `requestBody` (which ends with the user's `text`) and streams the answer into `turns`. */
  send: (text: string, requestBody: unknown) => Promise<void>;
  stop: () => void;
  clear: () => void;
};

export function useChatStream(protocol: "chat" | "messages", model: string, sendRequest: SendRequest): ChatStream {
  const [turns, setTurns] = useState<Shown[]>([]);
  const [streaming, setStreaming] = useState(false);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const abort = useRef<AbortController | null>(null);

  useEffect(() => () => abort.current?.abort(), []);

  async function send(text: string, requestBody: unknown) {
    const controller = new AbortController();
    abort.current = controller;
    const userTurn: Shown = { id: Date.now(), role: "user", content: text };
    const answerId = userTurn.id + 1;
    setTurns((current) => [...current, userTurn, { id: answerId, role: "assistant", content: "", streaming: true }]);
    setError(null);
    setStreaming(true);
    const started = performance.now();
    const update = (change: Partial<Shown> | ((turn: Shown) => Partial<Shown>)) =>
      setTurns((current) =>
        current.map((turn) => (turn.id === answerId ? { ...turn, ...(typeof change === "function" ? change(turn) : change) } : turn)),
      );
    try {
      const response = await sendRequest(
        protocol === "chat" ? "/v1/chat/completions" : "/v1/messages",
        JSON.stringify(requestBody),
        controller.signal,
      );
      if (!response.ok) {
        setError(await errorFrom(response));
        update({ streaming: false, failed: true, content: "" });
        return;
      }
      const requestId = response.headers.get("x-request-id");
      await readEventStream(response, (event) => {
        const payload = event.payload;
        if (!payload) return;
        if (protocol === "chat") {
          const choices = payload.choices as { delta?: { content?: string } }[] | undefined;
          const delta = choices?.[0]?.delta?.content;
          if (payload.system_fingerprint === "simulator") update({ simulated: true });
          if (delta) update((turn) => ({ content: turn.content + delta }));
          const usage = payload.usage as { prompt_tokens?: number; completion_tokens?: number } | undefined;
          if (usage) update({ inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens });
          const failure = payload.error as { message?: string } | undefined;
          if (failure?.message) setError(new Error(failure.message));
        } else {
          if (event.type === "message_start") {
            const usage = (payload.message as { usage?: { input_tokens?: number } } | undefined)?.usage;
            update({ inputTokens: usage?.input_tokens });
          } else if (event.type === "content_block_delta") {
            const delta = payload.delta as { type?: string; text?: string } | undefined;
            if (delta?.type === "text_delta" && delta.text) update((turn) => ({ content: turn.content + delta.text }));
          } else if (event.type === "message_delta") {
            const usage = payload.usage as { output_tokens?: number } | undefined;
            if (usage?.output_tokens !== undefined) update({ outputTokens: usage.output_tokens });
          } else if (event.type === "error") {
            setError(new Error((payload.error as { message?: string } | undefined)?.message ?? "The stream failed"));
          }
        }
      });
      update((turn) => ({
        streaming: false,
        latencyMs: Math.round(performance.now() - started),
        simulated: turn.simulated || turn.content.startsWith(SIMULATED_PREFIX),
      }));
      void findLedgerRow(requestId, model)
        .then((row) => update({ cost: row ? row.cost : null }))
        .catch(() => update({ cost: null }));
    } catch (caught) {
      if (controller.signal.aborted) update((turn) => ({ streaming: false, content: turn.content + (turn.content ? " …" : "(stopped)") }));
      else {
        setError(caught as Error);
        update({ streaming: false, failed: true });
      }
    } finally {
      setStreaming(false);
      abort.current = null;
    }
  }

  return { turns, streaming, error, send, stop: () => abort.current?.abort(), clear: () => setTurns([]) };
}
