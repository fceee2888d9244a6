"use client";
// A chat box for the text models with streamed answers, over Chat Completions (Bearer key) or Messages
// (x-api-key). Each answer shows its tokens and its cost from the ledger, and is labelled when the simulator made it.
// The stream is read by use-chat-stream.ts and the conversation shown by chat-log.tsx. The message box is not a
// useApiForm: it sends a stream, not a JSON call, and its settings build the snippets as they are typed.
import { useEffect, useRef, useState } from "react";
import {
  ActionIcon,
  Button,
  Card,
  EmptyState,
  Grid,
  Group,
  NumberInput,
  ScrollArea,
  Stack,
  Text,
  Textarea,
  Title,
  Tooltip,
} from "@mantine/core";
import { IconMessageChatbot, IconPlayerStop, IconSend, IconTrash } from "@tabler/icons-react";
import { useBaseUrl } from "@/components/base-url";
import { chatBody, messagesBody, type ChatTurn } from "@/lib/portal/playground";
import { buildSnippets } from "@/lib/portal/snippets";
import type { ModelSource } from "@/lib/portal/server";
import { ChatLog } from "./chat-log";
import { SnippetCard } from "./snippet-card";
import { useChatStream } from "./use-chat-stream";
import { RunError, SourceBadge, type SendRequest } from "./shared";

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
  const [draft, setDraft] = useState("");
  const chat = useChatStream(protocol, model, sendRequest);
  const { turns, streaming } = chat;
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

  async function send() {
    const text = draft.trim();
    if (!text || chat.streaming) return;
    setDraft("");
    await chat.send(text, body);
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
                  onClick={chat.clear}
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
                <ChatLog turns={chat.turns} />
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
                  <Button color="red" variant="light" leftSection={<IconPlayerStop size={16} />} onClick={chat.stop}>
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
          <RunError error={chat.error} onRenewKey={onKeyRejected} />
          <SnippetCard snippets={buildSnippets(origin, protocol === "chat" ? "/v1/chat/completions" : "/v1/messages", body)} />
        </Stack>
      </Grid.Col>
    </Grid>
  );
}
