"use client";
// The Chat panel's conversation: each turn as a bubble; an answer shows its tokens, time, cost and whether the
// simulator made it.
import { Badge, Group, Paper, Stack, Text } from "@mantine/core";
import { count } from "@/lib/portal/format";
import { formatSeconds } from "@/lib/portal/playground";
import { SimulatorBadge } from "@/components/feedback";
import { CostLine } from "./shared";
import type { Shown } from "./use-chat-stream";

export function ChatLog({ turns }: { turns: Shown[] }) {
  return (
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
  );
}
