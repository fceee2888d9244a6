"use client";
// Operator: upstream channels. Create and edit (type, base URL, key, models, mapping, settings, priority, weight),
// switch on and off, and test one with a click: a tiny real request through its adapter, with latency and the
// upstream's error if any (POST /api/admin/channels/{id}/test).
import { useState, type FormEvent } from "react";
import {
  ActionIcon,
  Badge,
  Button,
  Card,
  Code,
  EmptyState,
  Group,
  JsonInput,
  Modal,
  NumberInput,
  PasswordInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  TagsInput,
  Text,
  Textarea,
  TextInput,
  Tooltip,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconEdit, IconPlayerPlay, IconPlus, IconServer, IconTrash } from "@tabler/icons-react";
import { ALL_MODELS } from "@/lib/catalog/models";
import { api, formErrors, NO_ERRORS, useApi, type FormErrors } from "@/lib/portal/api";
import { latency, relative } from "@/lib/portal/format";
import type { AdminChannel, ChannelTestResult } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { FormError, LoadError, Loading, SimulatorBadge } from "@/components/feedback";
import { DataTable } from "@/components/data-table";

const TYPES = [
  { value: "openai", label: "OpenAI-compatible" },
  { value: "anthropic", label: "Anthropic" },
  { value: "simulator", label: "Simulator (built-in, offline)" },
];

const FIELDS = ["name", "type", "baseUrl", "apiKey", "models", "modelMapping", "settings", "priority", "weight", "status"] as const;

type Draft = {
  name: string;
  type: AdminChannel["type"];
  baseUrl: string;
  apiKey: string;
  models: string[];
  mapping: string;
  settings: string;
  priority: number | string;
  weight: number | string;
  enabled: boolean;
};

function draftOf(channel: AdminChannel | null): Draft {
  if (!channel)
    return {
      name: "",
      type: "openai",
      baseUrl: "",
      apiKey: "",
      models: [],
      mapping: "",
      settings: "{}",
      priority: 0,
      weight: 1,
      enabled: true,
    };
  return {
    name: channel.name,
    type: channel.type,
    baseUrl: channel.baseUrl,
    apiKey: "",
    models: channel.models,
    mapping: Object.entries(channel.modelMapping ?? {})
      .map(([from, to]) => `${from} = ${to}`)
      .join("\n"),
    settings: JSON.stringify(channel.settings ?? {}, null, 2),
    priority: channel.priority,
    weight: channel.weight,
    enabled: channel.status === "enabled",
  };
}

/** "public = upstream" per line → {public: upstream}; null with the bad line's number when one is malformed. */
function parseMapping(text: string): Record<string, string> | { error: string } {
  const mapping: Record<string, string> = {};
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (!line) continue;
    const match = /^(.+?)\s*(?:=|->|→)\s*(.+)$/.exec(line);
    if (!match) return { error: `Line ${index + 1}: write it as public-model = upstream-model` };
    mapping[match[1]!.trim()] = match[2]!.trim();
  }
  return mapping;
}

function ChannelForm({ channel, onClose, onSaved }: { channel: AdminChannel | null; onClose: () => void; onSaved: () => void }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(channel));
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saving, setSaving] = useState(false);
  const set = (change: Partial<Draft>) => setDraft((current) => ({ ...current, ...change }));
  const simulator = draft.type === "simulator";
  const [fetched, setFetched] = useState<string[] | null>(null);
  const [fetching, setFetching] = useState(false);

  /** The upstream's own list (GET …/models with the saved key), offered as choices for Models. */
  async function fetchModels() {
    if (!channel) return;
    setFetching(true);
    try {
      setFetched(
        (
          await api<{ models: string[] }>(`/api/admin/channels/${encodeURIComponent(channel.id)}/fetch-models`, {
            method: "POST",
            body: {},
          })
        ).models,
      );
    } catch (error) {
      setErrors({ fields: {}, form: (error as Error).message });
    } finally {
      setFetching(false);
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const fields: Record<string, string> = {};
    if (!draft.name.trim()) fields.name = "Give the channel a name";
    if (!simulator && !draft.baseUrl.trim()) fields.baseUrl = "The upstream's base URL, e.g. https://api.example.com/v1";
    if (!draft.models.length) fields.models = "A channel serves at least one model";
    const mapping = parseMapping(draft.mapping);
    if ("error" in mapping) fields.modelMapping = mapping.error as string;
    let settings: Record<string, unknown> = {};
    try {
      settings = draft.settings.trim() ? (JSON.parse(draft.settings) as Record<string, unknown>) : {};
      if (typeof settings !== "object" || settings === null || Array.isArray(settings)) throw new Error();
    } catch {
      fields.settings = "Settings must be a JSON object";
    }
    setErrors({ fields, form: null });
    if (Object.keys(fields).length) return;
    const body: Record<string, unknown> = {
      name: draft.name.trim(),
      type: draft.type,
      models: draft.models,
      modelMapping: mapping,
      settings,
      priority: Number(draft.priority) || 0,
      weight: Number(draft.weight) || 0,
      status: draft.enabled ? "enabled" : "disabled",
    };
    // A simulator needs neither: what was typed before switching the type to simulator is not sent.
    if (!simulator) body.baseUrl = draft.baseUrl.trim();
    if (!simulator && (!channel || draft.apiKey)) body.apiKey = draft.apiKey;
    setSaving(true);
    try {
      if (channel) await api(`/api/admin/channels/${encodeURIComponent(channel.id)}`, { method: "PATCH", body });
      else await api("/api/admin/channels", { body });
      notifications.show({ color: "teal", title: channel ? "Channel saved" : "Channel created", message: draft.name });
      onSaved();
    } catch (error) {
      setErrors(formErrors(error, FIELDS));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-label={channel ? "Edit channel" : "Create channel"}>
      <Stack gap="md">
        <FormError message={errors.form} />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <TextInput
            label="Name"
            value={draft.name}
            onChange={(event) => set({ name: event.currentTarget.value })}
            error={errors.fields.name}
            data-autofocus
            name="name"
          />
          <Select
            label="Type"
            data={TYPES}
            value={draft.type}
            onChange={(type) => set({ type: (type ?? "openai") as Draft["type"] })}
            allowDeselect={false}
            error={errors.fields.type}
            name="type"
          />
        </SimpleGrid>
        {!simulator ? (
          <>
            <TextInput
              label="Base URL"
              description={draft.type === "anthropic" ? "e.g. https://api.anthropic.com" : "e.g. https://api.openai.com/v1"}
              value={draft.baseUrl}
              onChange={(event) => set({ baseUrl: event.currentTarget.value })}
              error={errors.fields.baseUrl}
              name="baseUrl"
            />
            <PasswordInput
              label="Upstream API key"
              description={channel?.hasApiKey ? "A key is set. Leave empty to keep it." : "Stored encrypted; never shown again."}
              value={draft.apiKey}
              onChange={(event) => set({ apiKey: event.currentTarget.value })}
              error={errors.fields.apiKey}
              autoComplete="off"
              name="apiKey"
            />
          </>
        ) : (
          <Text size="sm" c="dimmed">
            The simulator needs no URL or key: it renders real images and streams realistic text offline, labelled as simulated.
          </Text>
        )}
        {channel && !simulator ? (
          <Group gap="xs">
            <Button size="compact-xs" variant="light" onClick={() => void fetchModels()} loading={fetching}>
              Fetch the upstream&apos;s models
            </Button>
            {fetched ? (
              <Text size="xs" c="dimmed" data-testid="fetched-models">
                {fetched.length} found; pick them in Models below
                {fetched.length ? ` (${fetched.slice(0, 4).join(", ")}${fetched.length > 4 ? ", …" : ""})` : ""}.
              </Text>
            ) : null}
          </Group>
        ) : null}
        <TagsInput
          label="Models"
          description="Public model names this channel serves. Type a name and press Enter."
          data={[...new Set([...ALL_MODELS, ...(fetched ?? [])])]}
          value={draft.models}
          onChange={(models) => set({ models })}
          error={errors.fields.models}
          clearable
          name="models"
        />
        <Textarea
          label="Model mapping"
          description="Optional, one per line: public-model = upstream-model"
          placeholder={"std-5.5 = gpt-5.5\nstd-image-2 = gpt-image-2"}
          autosize
          minRows={2}
          value={draft.mapping}
          onChange={(event) => set({ mapping: event.currentTarget.value })}
          error={errors.fields.modelMapping}
          styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)" } }}
          name="modelMapping"
        />
        <JsonInput
          label="Settings"
          description='Per-type options as JSON, e.g. {"delayMs": 50} for the simulator.'
          autosize
          minRows={2}
          formatOnBlur
          validationError="Not valid JSON"
          value={draft.settings}
          onChange={(settings) => set({ settings })}
          error={errors.fields.settings}
          name="settings"
        />
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
          <NumberInput
            label="Priority"
            description="Higher is tried first."
            value={draft.priority}
            onChange={(priority) => set({ priority })}
            min={-1000}
            max={1000}
            error={errors.fields.priority}
            name="priority"
          />
          <NumberInput
            label="Weight"
            description="Share among equal priority."
            value={draft.weight}
            onChange={(weight) => set({ weight })}
            min={0}
            max={1000}
            error={errors.fields.weight}
            name="weight"
          />
          <Switch label="Enabled" mt={30} checked={draft.enabled} onChange={(event) => set({ enabled: event.currentTarget.checked })} />
        </SimpleGrid>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" loading={saving}>
            {channel ? "Save channel" : "Create channel"}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function TestResult({ result }: { result: ChannelTestResult | "running" | undefined }) {
  if (!result) return null;
  if (result === "running")
    return (
      <Text size="xs" c="dimmed">
        Testing…
      </Text>
    );
  return (
    <Stack gap={2} data-testid="channel-test-result">
      <Badge color={result.ok ? "teal" : "red"} variant="light" size="sm">
        {result.ok ? "OK" : `Failed · ${result.status}`} · {latency(result.latencyMs)}
      </Badge>
      <Text size="xs" c="dimmed">
        {result.model} via {result.kind}
      </Text>
      {result.error ? (
        <Text size="xs" c="red" maw={260} lineClamp={4} title={result.error}>
          {result.error}
        </Text>
      ) : null}
    </Stack>
  );
}

export function ChannelsAdmin() {
  const channels = useApi<{ data: AdminChannel[] }>("/api/admin/channels");
  const [editing, setEditing] = useState<AdminChannel | "new" | null>(null);
  const [deleting, setDeleting] = useState<AdminChannel | null>(null);
  const [tests, setTests] = useState<Record<string, ChannelTestResult | "running">>({});
  const [every, setEvery] = useState<Record<string, ChannelTestResult[]>>({});
  const [busy, setBusy] = useState<string | null>(null);

  async function test(channel: AdminChannel) {
    setTests((current) => ({ ...current, [channel.id]: "running" }));
    try {
      const result = await api<ChannelTestResult>(`/api/admin/channels/${encodeURIComponent(channel.id)}/test`, { method: "POST" });
      setTests((current) => ({ ...current, [channel.id]: result }));
    } catch (error) {
      setTests((current) => ({
        ...current,
        [channel.id]: { ok: false, latencyMs: 0, status: 0, model: "", kind: "chat", error: (error as Error).message },
      }));
    }
  }

  /** Every model of the channel, one request each, one after the other; the results list under the row. */
  async function testEvery(channel: AdminChannel) {
    setEvery((current) => ({ ...current, [channel.id]: [] }));
    for (const model of channel.models) {
      let result: ChannelTestResult;
      try {
        result = await api<ChannelTestResult>(`/api/admin/channels/${encodeURIComponent(channel.id)}/test`, {
          method: "POST",
          body: { model },
        });
      } catch (error) {
        result = { ok: false, latencyMs: 0, status: 0, model, kind: "chat", error: (error as Error).message };
      }
      setEvery((current) => ({ ...current, [channel.id]: [...(current[channel.id] ?? []), result] }));
    }
  }

  async function toggle(channel: AdminChannel, enabled: boolean) {
    setBusy(channel.id);
    try {
      await api(`/api/admin/channels/${encodeURIComponent(channel.id)}`, {
        method: "PATCH",
        body: { status: enabled ? "enabled" : "disabled" },
      });
      await channels.reload();
    } catch (error) {
      notifications.show({ color: "red", title: "Could not change the channel", message: (error as Error).message });
    } finally {
      setBusy(null);
    }
  }

  async function remove() {
    if (!deleting) return;
    try {
      await api(`/api/admin/channels/${encodeURIComponent(deleting.id)}`, { method: "DELETE" });
      notifications.show({ color: "teal", title: "Channel deleted", message: deleting.name });
      setDeleting(null);
      await channels.reload();
    } catch (error) {
      notifications.show({ color: "red", title: "Could not delete the channel", message: (error as Error).message });
    }
  }

  const list = channels.data?.data ?? [];
  return (
    <>
      <PageHeader
        title="Channels"
        description="Upstreams the gateway routes to: highest priority first, weighted among equals; a failure before the first byte tries the next."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={() => setEditing("new")}>
            New channel
          </Button>
        }
      />
      {channels.error ? <LoadError error={channels.error} onRetry={channels.reload} /> : null}
      {channels.loading && !channels.data ? (
        <Loading />
      ) : channels.data && list.length === 0 ? (
        <Card withBorder radius="lg" py={48}>
          <EmptyState
            icon={<IconServer size={28} />}
            variant="light"
            title="No channels"
            description="Without a channel no model can be served. Add an upstream, or a simulator channel to work offline."
          />
        </Card>
      ) : channels.data ? (
        <Card withBorder radius="lg" p={0}>
          <DataTable minWidth={940} verticalSpacing="sm" horizontalSpacing="sm" highlightOnHover data-testid="channels-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Channel</Table.Th>
                <Table.Th>Models</Table.Th>
                <Table.Th ta="center">Priority</Table.Th>
                <Table.Th ta="center">Weight</Table.Th>
                <Table.Th>Enabled</Table.Th>
                <Table.Th>Test</Table.Th>
                <Table.Th w={90}>
                  <span className="visually-hidden">Actions</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((channel) => (
                <Table.Tr key={channel.id} data-testid="channel-row">
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      <Text fw={600} size="sm">
                        {channel.name}
                      </Text>
                      {channel.type === "simulator" ? <SimulatorBadge size="xs" /> : null}
                    </Group>
                    <Text size="xs" c="dimmed">
                      {TYPES.find((type) => type.value === channel.type)?.label ?? channel.type}
                      {channel.baseUrl ? (
                        <>
                          {" · "}
                          <Code fz="xs">{channel.baseUrl}</Code>
                        </>
                      ) : null}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Tooltip label={channel.models.join(", ")} multiline w={320}>
                      <Group gap={4} wrap="wrap" maw={280}>
                        {channel.models.slice(0, 3).map((model) => (
                          <Badge key={model} variant="outline" color="gray" size="xs" tt="none">
                            {model}
                          </Badge>
                        ))}
                        {channel.models.length > 3 ? (
                          <Badge size="xs" variant="light">
                            +{channel.models.length - 3}
                          </Badge>
                        ) : null}
                      </Group>
                    </Tooltip>
                  </Table.Td>
                  <Table.Td ta="center">{channel.priority}</Table.Td>
                  <Table.Td ta="center">{channel.weight}</Table.Td>
                  <Table.Td>
                    <Switch
                      checked={channel.status === "enabled"}
                      onChange={(event) => void toggle(channel, event.currentTarget.checked)}
                      disabled={busy === channel.id}
                      aria-label={`${channel.status === "enabled" ? "Disable" : "Enable"} ${channel.name}`}
                    />
                    {channel.disabledReason ? (
                      <Text size="xs" c="red" maw={200} lineClamp={2} title={channel.disabledReason}>
                        {channel.disabledReason}
                      </Text>
                    ) : (
                      <Text size="xs" c="dimmed">
                        changed {relative(channel.updatedAt)}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Stack gap={4} align="flex-start">
                      <Button
                        size="compact-xs"
                        variant="light"
                        leftSection={<IconPlayerPlay size={12} />}
                        onClick={() => void test(channel)}
                        loading={tests[channel.id] === "running"}
                        aria-label={`Test ${channel.name}`}
                      >
                        Test
                      </Button>
                      <TestResult result={tests[channel.id]} />
                      {channel.models.length > 1 ? (
                        <Button
                          size="compact-xs"
                          variant="subtle"
                          onClick={() => void testEvery(channel)}
                          aria-label={`Test every model of ${channel.name}`}
                        >
                          Test every model
                        </Button>
                      ) : null}
                      {every[channel.id] ? (
                        <Stack gap={0} data-testid="channel-test-every">
                          {every[channel.id]!.map((result) => (
                            <Text key={result.model} size="xs" c={result.ok ? "teal.8" : "red"} title={result.error}>
                              {result.model}:{" "}
                              {result.ok ? `OK · ${latency(result.latencyMs)}` : `failed${result.status ? ` · ${result.status}` : ""}`}
                            </Text>
                          ))}
                          {every[channel.id]!.length < channel.models.length ? (
                            <Text size="xs" c="dimmed">
                              Testing…
                            </Text>
                          ) : null}
                        </Stack>
                      ) : null}
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      <Tooltip label="Edit">
                        <ActionIcon variant="subtle" aria-label={`Edit ${channel.name}`} onClick={() => setEditing(channel)}>
                          <IconEdit size={16} />
                        </ActionIcon>
                      </Tooltip>
                      <Tooltip label="Delete">
                        <ActionIcon variant="subtle" color="red" aria-label={`Delete ${channel.name}`} onClick={() => setDeleting(channel)}>
                          <IconTrash size={16} />
                        </ActionIcon>
                      </Tooltip>
                    </Group>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </DataTable>
        </Card>
      ) : null}

      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={<Text fw={600}>{editing === "new" ? "New channel" : "Edit channel"}</Text>}
        size="lg"
        centered
      >
        {editing !== null ? (
          <ChannelForm
            key={editing === "new" ? "new" : editing.id}
            channel={editing === "new" ? null : editing}
            onClose={() => setEditing(null)}
            onSaved={() => {
              // A test result from before the edit no longer says anything about the channel.
              if (editing !== "new") {
                const id = editing.id;
                setTests(({ [id]: _dropped, ...rest }) => rest);
                setEvery(({ [id]: _droppedAll, ...rest }) => rest);
              }
              setEditing(null);
              void channels.reload();
            }}
          />
        ) : null}
      </Modal>
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title={<Text fw={600}>Delete this channel?</Text>} centered>
        <Stack gap="md">
          <Text size="sm">
            <b>{deleting?.name}</b> will no longer serve requests. Requests for its models go to other channels, or fail when there is none.
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(null)}>
              Keep it
            </Button>
            <Button color="red" onClick={() => void remove()}>
              Delete channel
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
