"use client";
// The playground: pick an endpoint and a model, then generate images, run a streaming Responses request, chat, or
// speak a text and transcribe audio.
// By default it calls the real endpoints through the session (/api/user/playground/v1/…, lib/gateway/playground.ts):
// billed through the account's playground key, whose secret never reaches the browser, with its own spending cap.
// Or with a key the user pastes (kept in memory only, sent straight to /v1).
import { useCallback, useState } from "react";
import Link from "next/link";
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Code,
  Grid,
  Group,
  PasswordInput,
  SegmentedControl,
  Select,
  Stack,
  Text,
  useMatches,
} from "@mantine/core";
import { IconAlertTriangle, IconKey, IconRefresh } from "@tabler/icons-react";
import { api, useApi, useMoneyRefresh } from "@/lib/portal/api";
import { usd, usdExact } from "@/lib/portal/format";
import { afterSettlement, authHeaders, ENDPOINTS, type EndpointId } from "@/lib/portal/playground";
import type { PlaygroundEndpoint } from "@/lib/portal/snippets";
import type { Self, UserModel } from "@/lib/portal/types";
import type { ModelSource } from "@/lib/portal/server";
import { PageHeader } from "@/components/page-header";
import { LoadError } from "@/components/feedback";
import { ImagesPanel } from "./images-panel";
import { EditPanel } from "./edit-panel";
import { ResponsesPanel } from "./responses-panel";
import { ChatPanel } from "./chat-panel";
import { AudioPanel } from "./audio-panel";
import { SourceBadge, type SendRequest } from "./shared";
import { RenewKeyDialog, RenewNotice, type PlaygroundKey } from "./renew-key";

type PlaygroundKeyInfo = { key: PlaygroundKey | null; cap: number };

const ENDPOINT_OF_PATH: Record<PlaygroundEndpoint, EndpointId> = {
  "/v1/images/generations": "images",
  "/v1/images/edits": "edits",
  "/v1/responses": "responses",
  "/v1/chat/completions": "chat",
  "/v1/messages": "messages",
  "/v1/audio/speech": "audio",
  "/v1/audio/transcriptions": "audio",
};

export function Playground({ sources }: { userId: string; sources: Record<string, ModelSource> }) {
  const self = useApi<Self>("/api/user/self");
  const keyInfo = useApi<PlaygroundKeyInfo>("/api/user/playground");
  const catalog = useApi<{ data: UserModel[] }>("/api/user/models");
  const [endpoint, setEndpoint] = useState<EndpointId>("images");
  const [models, setModels] = useState<Record<EndpointId, string>>(
    () => Object.fromEntries(ENDPOINTS.map((entry) => [entry.id, entry.models[0]!])) as Record<EndpointId, string>,
  );
  const [mode, setMode] = useState<"playground" | "paste">("playground");
  const [pasted, setPasted] = useState("");
  const [pastedError, setPastedError] = useState<string | null>(null);
  const [renewing, setRenewing] = useState(false);
  // Renew is asked first (renew-key.tsx); once done, a notice names the new key.
  const [askRenew, setAskRenew] = useState(false);
  const [renewError, setRenewError] = useState<string | null>(null);
  const [renewed, setRenewed] = useState<{ key: PlaygroundKey; previous: string | null } | null>(null);

  const group = self.data ? (self.data.groups.includes("default") ? "default" : self.data.groups[0]) : undefined;
  const { reload: reloadSelf } = self;
  const { reload: reloadKey } = keyInfo;
  const refreshMoney = useMoneyRefresh();

  const send: SendRequest = useCallback(
    async (path, body, signal) => {
      const kind = ENDPOINT_OF_PATH[path];
      if (mode === "paste") {
        const key = pasted.trim();
        if (!/^sk-\S+$/.test(key)) {
          setPastedError("Paste one of your API keys (sk-…), or use the playground's own key");
          throw new Error("Paste one of your API keys (sk-…) above, or use the playground's own key.");
        }
        setPastedError(null);
        const response = await fetch(path, { method: "POST", headers: authHeaders(kind, key, typeof body !== "string"), body, signal });
        void response
          .clone()
          .body?.pipeTo(new WritableStream())
          .catch(() => undefined)
          .finally(() => void reloadSelf());
        return response;
      }
      const query = group ? `?group=${encodeURIComponent(group)}` : "";
      // A form (an image edit, a transcription) goes as multipart with the portal's header (lib/auth/cross-site.ts); the rest as JSON.
      const headers: Record<string, string> =
        typeof body === "string"
          ? { "content-type": "application/json", ...(kind === "messages" ? { "anthropic-version": "2023-06-01" } : {}) }
          : { "x-gateway-portal": "1" };
      const response = await fetch(`/api/user/playground${path}${query}`, { method: "POST", headers, body, signal });
      // What is left of the cap and of the balance, once the run is settled (the answer is read by the panel): every
      // money figure on every page at once, and again once its ledger row exists (the settlement is written then).
      void response
        .clone()
        .body?.pipeTo(new WritableStream())
        .catch(() => undefined)
        .finally(() => void afterSettlement(response.headers.get("x-request-id"), body).finally(() => void refreshMoney()));
      return response;
    },
    [group, mode, pasted, reloadSelf, refreshMoney],
  );

  const currentKey = keyInfo.data?.key ?? null;
  const renew = useCallback(async () => {
    setRenewing(true);
    setRenewError(null);
    try {
      const answer = await api<PlaygroundKeyInfo>("/api/user/playground/renew", { body: group ? { group } : {} });
      setAskRenew(false);
      if (answer.key) setRenewed({ key: answer.key, previous: currentKey?.prefix ?? null });
      await reloadKey();
    } catch (error) {
      setRenewError((error as Error).message);
    } finally {
      setRenewing(false);
    }
  }, [currentKey, group, reloadKey]);
  const confirmRenew = useCallback(() => {
    setRenewError(null);
    setAskRenew(true);
  }, []);

  // Six labels fit side by side from a tablet's width; narrower, the endpoints are a list to pick from.
  const compact = useMatches({ base: true, md: false });
  const current = ENDPOINTS.find((entry) => entry.id === endpoint)!;
  // The pickers offer what the Models & pricing page lists (GET /api/user/models): every priced model open to the
  // account that serves the endpoint, operator-added ones included; the built-in names until it has loaded.
  const offered = (id: EndpointId): string[] => {
    const entry = ENDPOINTS.find((candidate) => candidate.id === id)!;
    const listed = catalog.data?.data.filter((item) => item.endpoints.includes(entry.path)).map((item) => item.id);
    return listed?.length ? listed : entry.models;
  };
  const choices = offered(endpoint);
  const model = choices.includes(models[endpoint]) ? models[endpoint] : choices[0]!;
  const source = sources[model];
  const panelProps = { model, source, send, onKeyRejected: confirmRenew };

  return (
    <>
      <PageHeader
        title="Playground"
        description="Try every endpoint. Requests are real and billed to your balance like any other, through your session or a key you paste."
        actions={
          self.data ? (
            <Badge size="lg" variant="light" color={self.data.balance > 0 ? "indigo" : "red"} data-testid="playground-balance">
              Balance {usdExact(self.data.balance)}
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
          <Grid.Col span={12}>
            <Stack gap={4}>
              {compact ? (
                <Select
                  label="Endpoint"
                  data={ENDPOINTS.map((entry) => ({ value: entry.id, label: entry.label }))}
                  value={endpoint}
                  onChange={(value) => value && setEndpoint(value as EndpointId)}
                  allowDeselect={false}
                  data-testid="endpoint-picker"
                />
              ) : (
                <>
                  <Text size="sm" fw={500} id="endpoint-label">
                    Endpoint
                  </Text>
                  <SegmentedControl
                    aria-labelledby="endpoint-label"
                    fullWidth
                    value={endpoint}
                    onChange={(value) => setEndpoint(value as EndpointId)}
                    data={ENDPOINTS.map((entry) => ({ value: entry.id, label: entry.label }))}
                    data-testid="endpoint-picker"
                  />
                </>
              )}
              <Text size="xs" c="dimmed">
                <Code>POST {current.path}</Code> · {current.description}
              </Text>
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 6 }}>
            <Select
              label={
                <Group gap={6} component="span">
                  <span>{endpoint === "audio" ? "Speech model" : "Model"}</span>
                  <SourceBadge source={source} />
                </Group>
              }
              data={choices}
              value={model}
              onChange={(value) => value && setModels((all) => ({ ...all, [endpoint]: value }))}
              allowDeselect={false}
              data-testid="model-picker"
            />
            <Text size="xs" c="dimmed" mt={4}>
              {choices.length === 1 ? "The only model of this endpoint." : `${choices.length} models`}
            </Text>
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 6 }}>
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
                  { value: "playground", label: "Through my session" },
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
                <Group gap={6} justify="space-between" wrap="nowrap" align="flex-start">
                  <Text size="xs" c="dimmed" data-testid="playground-key-status" style={{ flex: 1, minWidth: 0 }}>
                    {keyInfo.data?.key ? (
                      <>
                        <Code>{keyInfo.data.key.prefix}…</Code> · {usdExact(keyInfo.data.key.remaining)} of its {usd(keyInfo.data.key.cap)}{" "}
                        cap left
                      </>
                    ) : (
                      `Through your session; made on the first run, with a ${usd(keyInfo.data?.cap ?? 2_000_000)} spending cap. Its secret never leaves the server.`
                    )}
                  </Text>
                  {keyInfo.data?.key ? (
                    // Never narrower than its word: the status text beside it wraps instead.
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      leftSection={<IconRefresh size={12} />}
                      onClick={confirmRenew}
                      loading={renewing}
                      style={{ flexShrink: 0 }}
                      data-testid="playground-renew"
                    >
                      Renew
                    </Button>
                  ) : null}
                </Group>
              )}
            </Stack>
          </Grid.Col>
        </Grid>
        {renewed ? <RenewNotice renewed={renewed} onClose={() => setRenewed(null)} /> : null}
      </Card>

      <RenewKeyDialog
        opened={askRenew}
        current={currentKey}
        cap={keyInfo.data?.cap ?? currentKey?.cap ?? 2_000_000}
        renewing={renewing}
        error={renewError}
        onConfirm={() => void renew()}
        onClose={() => setAskRenew(false)}
      />

      {endpoint === "images" ? <ImagesPanel key="images" {...panelProps} /> : null}
      {endpoint === "edits" ? <EditPanel key="edits" {...panelProps} /> : null}
      {endpoint === "responses" ? <ResponsesPanel key="responses" {...panelProps} /> : null}
      {endpoint === "chat" ? <ChatPanel key="chat" protocol="chat" {...panelProps} /> : null}
      {endpoint === "messages" ? <ChatPanel key="messages" protocol="messages" {...panelProps} /> : null}
      {endpoint === "audio" ? <AudioPanel key="audio" {...panelProps} catalog={catalog.data?.data} sources={sources} /> : null}
    </>
  );
}
