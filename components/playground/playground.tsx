"use client";
// The playground: pick an endpoint and a model, then generate images, run a streaming Responses request or chat.
// It calls the real /v1 endpoints with a key of the user's own: by default a short-lived playground key made for
// this browser (lib/portal/playground-key.ts), or one the user pastes (kept in memory only).
import { useCallback, useEffect, useRef, useState } from "react";
import Link from "next/link";
import { Alert, Anchor, Badge, Button, Card, Code, Grid, Group, PasswordInput, SegmentedControl, Select, Stack, Text, useMatches } from "@mantine/core";
import { IconAlertTriangle, IconKey, IconRefresh } from "@tabler/icons-react";
import { useApi } from "@/lib/portal/api";
import { relative, usd } from "@/lib/portal/format";
import { createPlaygroundKey, currentPlaygroundKey, forgetPlaygroundKey, PLAYGROUND_KEY_HOURS, type PlaygroundKey } from "@/lib/portal/playground-key";
import { ENDPOINTS, type EndpointId } from "@/lib/portal/playground";
import type { Self } from "@/lib/portal/types";
import type { ModelSource } from "@/lib/portal/server";
import { PageHeader } from "@/components/page-header";
import { LoadError } from "@/components/feedback";
import { ImagesPanel } from "./images-panel";
import { ResponsesPanel } from "./responses-panel";
import { ChatPanel } from "./chat-panel";
import { SourceBadge } from "./shared";

export function Playground({ userId, sources }: { userId: string; sources: Record<string, ModelSource> }) {
  const self = useApi<Self>("/api/user/self");
  const [endpoint, setEndpoint] = useState<EndpointId>("images");
  const [models, setModels] = useState<Record<EndpointId, string>>(() => Object.fromEntries(ENDPOINTS.map((entry) => [entry.id, entry.models[0]!])) as Record<EndpointId, string>);
  const [mode, setMode] = useState<"playground" | "paste">("playground");
  const [pasted, setPasted] = useState("");
  const [pastedError, setPastedError] = useState<string | null>(null);
  const [playgroundKey, setPlaygroundKey] = useState<PlaygroundKey | null>(null);
  const [keyError, setKeyError] = useState<string | null>(null);
  const [renewing, setRenewing] = useState(false);
  const pending = useRef<Promise<PlaygroundKey> | null>(null);

  useEffect(() => {
    currentPlaygroundKey(userId)
      .then(setPlaygroundKey)
      .catch(() => setPlaygroundKey(null));
  }, [userId]);

  const group = self.data ? (self.data.groups.includes("default") ? "default" : self.data.groups[0]) : undefined;

  const ensurePlaygroundKey = useCallback(
    async (renew: boolean): Promise<PlaygroundKey> => {
      if (!renew && playgroundKey && new Date(playgroundKey.expiresAt).getTime() > Date.now() + 60_000) return playgroundKey;
      if (!group) throw new Error("No key group is open to your account, so no key can be made. Ask the operator.");
      pending.current ??= createPlaygroundKey(userId, group).finally(() => (pending.current = null));
      const created = await pending.current;
      setPlaygroundKey(created);
      setKeyError(null);
      return created;
    },
    [group, playgroundKey, userId],
  );

  const getKey = useCallback(async (): Promise<string> => {
    if (mode === "paste") {
      const key = pasted.trim();
      if (!/^sk-\S+$/.test(key)) {
        setPastedError("Paste one of your API keys: it starts with sk-");
        throw new Error("Paste one of your API keys (sk-…) above, or use a playground key.");
      }
      setPastedError(null);
      return key;
    }
    try {
      return (await ensurePlaygroundKey(false)).key;
    } catch (error) {
      setKeyError((error as Error).message);
      throw error;
    }
  }, [ensurePlaygroundKey, mode, pasted]);

  const renew = useCallback(async () => {
    if (mode === "paste") return;
    setRenewing(true);
    try {
      forgetPlaygroundKey(userId);
      await ensurePlaygroundKey(true);
    } catch (error) {
      setKeyError((error as Error).message);
    } finally {
      setRenewing(false);
    }
  }, [ensurePlaygroundKey, mode, userId]);

  // Four labels fit a phone's width only in the smaller size.
  const compact = useMatches({ base: true, sm: false });
  const current = ENDPOINTS.find((entry) => entry.id === endpoint)!;
  const model = models[endpoint];
  const source = sources[model];
  const panelProps = { model, source, getKey, onKeyRejected: () => void renew() };

  return (
    <>
      <PageHeader
        title="Playground"
        description="Try every endpoint with a key of your own. Requests are real and billed to your balance like any other."
        actions={
          self.data ? (
            <Badge size="lg" variant="light" color={self.data.balance > 0 ? "indigo" : "red"} data-testid="playground-balance">
              Balance {usd(self.data.balance)}
            </Badge>
          ) : null
        }
      />
      {self.error ? <LoadError error={self.error} onRetry={self.reload} /> : null}
      {self.data && self.data.balance <= 0 ? (
        <Alert color="orange" variant="light" icon={<IconAlertTriangle size={18} />} mb="md" title="Your balance is empty">
          Requests need balance.{" "}
          <Anchor component={Link} href="/redeem">
            Redeem a code
          </Anchor>{" "}
          first.
        </Alert>
      ) : null}

      <Card withBorder radius="lg" padding="lg" mb="md">
        <Grid gap="md" align="flex-end">
          <Grid.Col span={{ base: 12, lg: 5 }}>
            <Stack gap={4}>
              <Text size="sm" fw={500} id="endpoint-label">
                Endpoint
              </Text>
              <SegmentedControl
                aria-labelledby="endpoint-label"
                fullWidth
                size={compact ? "xs" : "sm"}
                value={endpoint}
                onChange={(value) => setEndpoint(value as EndpointId)}
                data={ENDPOINTS.map((entry) => ({ value: entry.id, label: entry.label }))}
                data-testid="endpoint-picker"
              />
              <Text size="xs" c="dimmed">
                <Code>POST {current.path}</Code> · {current.description}
              </Text>
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 6, lg: 3 }}>
            <Select
              label={
                <Group gap={6} component="span">
                  <span>Model</span>
                  <SourceBadge source={source} />
                </Group>
              }
              data={current.models}
              value={model}
              onChange={(value) => value && setModels((all) => ({ ...all, [endpoint]: value }))}
              allowDeselect={false}
              data-testid="model-picker"
            />
            <Text size="xs" c="dimmed" mt={4}>
              {current.models.length === 1 ? "The only model of this endpoint." : `${current.models.length} models`}
            </Text>
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 6, lg: 4 }}>
            <Stack gap={4}>
              <Text size="sm" fw={500} id="key-label">
                Key
              </Text>
              <SegmentedControl
                aria-labelledby="key-label"
                fullWidth
                value={mode}
                onChange={(value) => setMode(value as "playground" | "paste")}
                data={[
                  { value: "playground", label: "Playground key" },
                  { value: "paste", label: "Paste my key" },
                ]}
              />
              {mode === "paste" ? (
                <PasswordInput
                  aria-label="Your API key"
                  placeholder="sk-…"
                  value={pasted}
                  onChange={(event) => setPasted(event.currentTarget.value)}
                  error={pastedError}
                  leftSection={<IconKey size={14} />}
                  size="xs"
                  autoComplete="off"
                />
              ) : (
                <Group gap={6} justify="space-between" wrap="nowrap">
                  <Text size="xs" c={keyError ? "red" : "dimmed"} data-testid="playground-key-status" lineClamp={2}>
                    {keyError
                      ? keyError
                      : playgroundKey
                        ? <>
                            <Code>{playgroundKey.prefix}…</Code> expires {relative(playgroundKey.expiresAt)}
                          </>
                        : `Made on your first request, valid ${PLAYGROUND_KEY_HOURS} h, kept in this browser.`}
                  </Text>
                  {playgroundKey ? (
                    <Button size="compact-xs" variant="subtle" leftSection={<IconRefresh size={12} />} onClick={() => void renew()} loading={renewing}>
                      Renew
                    </Button>
                  ) : null}
                </Group>
              )}
            </Stack>
          </Grid.Col>
        </Grid>
      </Card>

      {endpoint === "images" ? <ImagesPanel key="images" {...panelProps} /> : null}
      {endpoint === "responses" ? <ResponsesPanel key="responses" {...panelProps} /> : null}
      {endpoint === "chat" ? <ChatPanel key="chat" protocol="chat" {...panelProps} /> : null}
      {endpoint === "messages" ? <ChatPanel key="messages" protocol="messages" {...panelProps} /> : null}
    </>
  );
}
