"use client";
// A chat box for the text models with streamed answers, over Chat Completions (Bearer key) or Messages
// (x-api-key). Each answer shows its tokens and its cost from the ledger, and is labelled when the simulator made it.
import { useEffect, useRef, useState } from "react";
import {
  ActionIcon,
  Badge,
  Button,
  Card,
  EmptyState,
  Grid,
  Group,
  NumberInput,
  Paper,
  ScrollArea,
  Stack,
  Text,
  Textarea,
  Title,
  Tooltip,
} from "@mantine/core";
import { IconMessageChatbot, IconPlayerStop, IconSend, IconTrash } from "@tabler/icons-react";
import { errorFrom, type ApiError } from "@/lib/portal/api";
import { useBaseUrl } from "@/components/base-url";
import { count } from "@/lib/portal/format";
import { chatBody, findLedgerRow, formatSeconds, messagesBody, type ChatTurn } from "@/lib/portal/playground";
import { readEventStream } from "@/lib/portal/sse";
import { buildSnippets } from "@/lib/portal/snippets";
import type { ModelSource } from "@/lib/portal/server";
import { SimulatorBadge } from "@/components/feedback";
import { SnippetCard } from "./snippet-card";
import { CostLine, RunError, SourceBadge, type SendRequest } from "./shared";

type Shown = ChatTurn & {
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

export function ChatPanel({
  protocol,
  model,
  source,
  send: sendRequest,
  onKeyRejected,
}: {
  protocol: "chat" | "messages";
  model: string;
  source: ModelSource | undefined;
  send: SendRequest;
  onKeyRejected: () => void;
}) {
  const [system, setSystem] = useState("You are a helpful assistant.");
  const [maxTokens, setMaxTokens] = useState<number | string>(512);
  const [turns, setTurns] = useState<Shown[]>([]);
  const [draft, setDraft] = useState("");
  const [streaming, setStreaming] = useState(false);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const abort = useRef<AbortController | null>(null);
  const viewport = useRef<HTMLDivElement>(null);

  const history: ChatTurn[] = turns.filter((turn) => !turn.failed).map(({ role, content }) => ({ role, content }));
  const nextTurns: ChatTurn[] = [...history, { role: "user", content: draft.trim() || "Hello!" }];
  const tokens = typeof maxTokens === "number" && maxTokens > 0 ? maxTokens : 512;
  const body = protocol === "chat" ? chatBody(model, system, nextTurns, tokens) : messagesBody(model, system, nextTurns, tokens);
  const origin = useBaseUrl();

  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll to the end whenever a turn is added or grows
  useEffect(() => {
    viewport.current?.scrollTo({ top: viewport.current.scrollHeight });
  }, [turns]);

  useEffect(() => () => abort.current?.abort(), []);

  async function send() {
    const text = draft.trim();
    if (!text || streaming) return;
    const controller = new AbortController();
    abort.current = controller;
    const requestBody = body;
    const userTurn: Shown = { id: Date.now(), role: "user", content: text };
    const answerId = userTurn.id + 1;
    setTurns((current) => [...current, userTurn, { id: answerId, role: "assistant", content: "", streaming: true }]);
    setDraft("");
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

  return (
    <Grid gap="md">
      <Grid.Col span={{ base: 12, md: 4 }}>
        <Card withBorder radius="lg" padding="lg">
          <Stack gap="md">
            <Textarea
              label="System prompt"
              description="Optional: how the assistant should behave."
              autosize
              minRows={3}
              maxRows={8}
              value={system}
              onChange={(event) => setSystem(event.currentTarget.value)}
              name="system"
            />
            <NumberInput
              label="Max tokens"
              description="Upper bound of each answer (and of what is reserved for it)."
              min={1}
              max={100000}
              value={maxTokens}
              onChange={setMaxTokens}
              name="max_tokens"
            />
            <Text size="xs" c="dimmed">
              {protocol === "chat"
                ? "Sent to /v1/chat/completions with Authorization: Bearer."
                : "Sent to /v1/messages with the x-api-key header."}
            </Text>
          </Stack>
        </Card>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 8 }}>
        <Stack gap="md">
          <Card withBorder radius="lg" padding={0}>
            <Group justify="space-between" px="lg" py="sm" className="card-header">
              <Group gap="sm">
                <Title order={2} fz="lg">
                  Chat
                </Title>
                <SourceBadge source={source} />
              </Group>
              <Tooltip label="Clear the conversation">
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  aria-label="Clear the conversation"
                  onClick={() => setTurns([])}
                  disabled={streaming || turns.length === 0}
                >
                  <IconTrash size={16} />
                </ActionIcon>
              </Tooltip>
            </Group>
            <ScrollArea h={420} viewportRef={viewport} px="lg" type="auto">
              {turns.length === 0 ? (
                <EmptyState
                  h={400}
                  icon={<IconMessageChatbot size={28} />}
                  variant="light"
                  title="Start a conversation"
                  description="Answers stream in word by word. Each one shows its tokens and what it cost."
                />
              ) : (
                <Stack gap="sm" py="md" data-testid="chat-log" aria-live="polite">
                  {turns.map((turn) => (
                    <Group key={turn.id} justify={turn.role === "user" ? "flex-end" : "flex-start"} align="flex-start" wrap="nowrap">
                      <Paper
                        radius="lg"
                        px="md"
                        py="sm"
                        maw="85%"
                        withBorder={turn.role === "assistant"}
                        bg={turn.role === "user" ? "var(--mantine-primary-color-filled)" : undefined}
                        c={turn.role === "user" ? "white" : undefined}
                        data-testid={turn.role === "assistant" ? "assistant-message" : "user-message"}
                      >
                        <Text size="sm" style={{ whiteSpace: "pre-wrap" }} className={turn.streaming ? "streaming-caret" : undefined}>
                          {turn.content || (turn.failed ? "No answer." : "")}
                        </Text>
                        {turn.role === "assistant" && !turn.streaming && !turn.failed ? (
                          <Group gap={6} mt={6} wrap="wrap">
                            {turn.simulated ? <SimulatorBadge size="xs" /> : null}
                            {turn.inputTokens !== undefined || turn.outputTokens !== undefined ? (
                              <Badge size="xs" variant="default">
                                {count(turn.inputTokens ?? 0)} in / {count(turn.outputTokens ?? 0)} out
                              </Badge>
                            ) : null}
                            {turn.latencyMs !== undefined ? (
                              <Badge size="xs" variant="default">
                                {formatSeconds(turn.latencyMs)}
                              </Badge>
                            ) : null}
                            <CostLine cost={turn.cost} pending={turn.cost === undefined} />
                          </Group>
                        ) : null}
                      </Paper>
                    </Group>
                  ))}
                </Stack>
              )}
            </ScrollArea>
            <form
              onSubmit={(event) => {
                event.preventDefault();
                void send();
              }}
              aria-label="Send a message"
            >
              <Group gap="sm" p="md" align="flex-end" wrap="nowrap" className="card-footer">
                <Textarea
                  aria-label="Message"
                  placeholder="Write a message… (Enter to send, Shift+Enter for a new line)"
                  autosize
                  minRows={1}
                  maxRows={6}
                  style={{ flex: 1 }}
                  value={draft}
                  onChange={(event) => setDraft(event.currentTarget.value)}
                  onKeyDown={(event) => {
                    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
                      event.preventDefault();
                      void send();
                    }
                  }}
                  name="message"
                />
                {streaming ? (
                  <Button color="red" variant="light" leftSection={<IconPlayerStop size={16} />} onClick={() => abort.current?.abort()}>
                    Stop
                  </Button>
                ) : (
                  <Button type="submit" leftSection={<IconSend size={16} />} disabled={!draft.trim()}>
                    Send
                  </Button>
                )}
              </Group>
            </form>
          </Card>
          <RunError error={error} onRenewKey={onKeyRejected} />
          <SnippetCard snippets={buildSnippets(origin, protocol === "chat" ? "/v1/chat/completions" : "/v1/messages", body)} />
        </Stack>
      </Grid.Col>
    </Grid>
  );
}
