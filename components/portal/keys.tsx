"use client";
// API keys: the list (prefix, name, group, remaining quota, expiry, last used, status), create (the full key is
// shown once, with a copy button) and revoke. Everything goes through /api/user/keys, which only ever sees the
// signed-in user's own keys.
import { useState, type FormEvent } from "react";
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Card,
  Code,
  EmptyState,
  Group,
  Modal,
  NumberInput,
  Select,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Tooltip,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconAlertTriangle, IconKey, IconPencil, IconPlayerPause, IconPlayerPlay, IconPlus, IconTrash } from "@tabler/icons-react";
import { api, formErrors, NO_ERRORS, useApi, type FormErrors } from "@/lib/portal/api";
import { useBaseUrl } from "@/components/base-url";
import { dateOnly, relative, usd, usdPrecise, usdToMicros } from "@/lib/portal/format";
import type { ApiKey, CreatedKey, Self } from "@/lib/portal/types";
import { LEGACY_PLAYGROUND_KEY_NAME } from "@/lib/portal/playground-key";
import { PageHeader } from "@/components/page-header";
import { CopyField, FormError, LoadError, Loading } from "@/components/feedback";
import { KeyStatus, SetByOperator } from "@/components/key-state";
import { EditKeyModal } from "./edit-key";
import { DataTable } from "@/components/data-table";

const EXPIRY_PRESETS = [
  { value: "never", label: "Never" },
  { value: "7", label: "In 7 days" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
  { value: "365", label: "In 1 year" },
  { value: "custom", label: "On a date…" },
];

const FIELDS = ["name", "group", "quota", "expiresAt"] as const;

function expiryFrom(preset: string, custom: string): string | null | "invalid" {
  if (preset === "never") return null;
  if (preset === "custom") {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(custom)) return "invalid";
    // The end of the chosen day, in the user's own time zone.
    return new Date(`${custom}T23:59:59`).toISOString();
  }
  return new Date(Date.now() + Number(preset) * 86_400_000).toISOString();
}

function CreateKeyModal({
  opened,
  onClose,
  groups,
  onCreated,
}: {
  opened: boolean;
  onClose: () => void;
  groups: string[];
  onCreated: (key: CreatedKey) => void;
}) {
  const [name, setName] = useState("");
  const [group, setGroup] = useState<string | null>(groups.includes("default") ? "default" : (groups[0] ?? null));
  const [unlimited, setUnlimited] = useState(true);
  const [quota, setQuota] = useState<number | string>(10);
  const [preset, setPreset] = useState<string>("never");
  const [custom, setCustom] = useState("");
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [submitting, setSubmitting] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const fields: Record<string, string> = {};
    if (!group) fields.group = "Choose a group";
    if (!unlimited && (typeof quota !== "number" || quota <= 0))
      fields.quota = "Enter a spending limit above $0, or make the key unlimited";
    const expiresAt = expiryFrom(preset, custom);
    if (expiresAt === "invalid") fields.expiresAt = "Choose a date";
    setErrors({ fields, form: null });
    if (Object.keys(fields).length) return;
    setSubmitting(true);
    try {
      const created = await api<CreatedKey>("/api/user/keys", {
        body: {
          name: name.trim(),
          group,
          unlimited,
          ...(unlimited ? {} : { quota: usdToMicros(Number(quota)) }),
          ...(expiresAt ? { expiresAt } : {}),
        },
      });
      setName("");
      setPreset("never");
      onCreated(created);
    } catch (error) {
      setErrors(formErrors(error, FIELDS, { unlimited: "quota" }));
    } finally {
      setSubmitting(false);
    }
  }

  return (
    <Modal opened={opened} onClose={onClose} title={<Text fw={600}>Create an API key</Text>} centered size="md">
      <form onSubmit={submit} noValidate aria-label="Create an API key">
        <Stack gap="md">
          <FormError message={errors.form} />
          <TextInput
            label="Name"
            description="To recognise the key later, e.g. the app that uses it."
            placeholder="My app"
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={errors.fields.name}
            maxLength={100}
            data-autofocus
            name="name"
          />
          <Select
            label="Group"
            description="Decides which models the key may call."
            data={groups}
            value={group}
            onChange={setGroup}
            error={errors.fields.group}
            allowDeselect={false}
            name="group"
          />
          <Switch
            label="No spending limit of its own"
            description="The key can spend up to your account balance."
            checked={unlimited}
            onChange={(event) => setUnlimited(event.currentTarget.checked)}
          />
          {!unlimited ? (
            <NumberInput
              label="Spending limit"
              description="The most this key may spend, in US dollars."
              prefix="$"
              min={0.01}
              decimalScale={2}
              thousandSeparator=","
              value={quota}
              onChange={setQuota}
              error={errors.fields.quota}
              name="quota"
            />
          ) : errors.fields.quota ? (
            <Text c="red" size="sm">
              {errors.fields.quota}
            </Text>
          ) : null}
          <Select
            label="Expires"
            data={EXPIRY_PRESETS}
            value={preset}
            onChange={(value) => setPreset(value ?? "never")}
            allowDeselect={false}
            error={preset !== "custom" ? errors.fields.expiresAt : undefined}
            name="expiry"
          />
          {preset === "custom" ? (
            <TextInput
              type="date"
              label="Expiry date"
              value={custom}
              min={new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)}
              onChange={(event) => setCustom(event.currentTarget.value)}
              error={errors.fields.expiresAt}
              name="expiresAt"
            />
          ) : null}
          <Group justify="flex-end" mt="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={submitting}>
              Create key
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function NewKeyModal({ created, onClose }: { created: CreatedKey | null; onClose: () => void }) {
  const base = useBaseUrl();
  return (
    <Modal
      opened={created !== null}
      onClose={onClose}
      title={<Text fw={600}>Your new API key</Text>}
      centered
      size="lg"
      closeOnClickOutside={false}
    >
      {created ? (
        <Stack gap="md">
          <Alert color="orange" variant="light" icon={<IconAlertTriangle size={18} />}>
            Copy the key now and keep it somewhere safe. For your security it is stored only as a hash: it will not be shown again.
          </Alert>
          <CopyField value={created.key} label="Copy key" testId="new-key" />
          <Text size="sm" c="dimmed">
            Use it as a Bearer token, for example:
          </Text>
          {/* The full key, shown this once: the example works when pasted as it is. */}
          <CopyField
            testId="new-key-example"
            label="Copy example"
            value={`curl ${base}/v1/chat/completions \\\n  -H "Authorization: Bearer ${created.key}" \\\n  -H "Content-Type: application/json" \\\n  -d '{"model":"std-5.5","messages":[{"role":"user","content":"Hello"}]}'`}
          />
          <Group justify="flex-end">
            <Button onClick={onClose}>I have copied it</Button>
          </Group>
        </Stack>
      ) : null}
    </Modal>
  );
}

export function KeysPage() {
  const keys = useApi<{ data: ApiKey[] }>("/api/user/keys");
  const self = useApi<Self>("/api/user/self");
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [editing, setEditing] = useState<ApiKey | null>(null);

  async function setPaused(key: ApiKey, paused: boolean) {
    try {
      await api(`/api/user/keys/${encodeURIComponent(key.id)}`, { method: "PATCH", body: { status: paused ? "disabled" : "active" } });
      notifications.show({
        color: "teal",
        title: paused ? "Key paused" : "Key resumed",
        message: paused ? `${key.name || key.prefix} is refused until you resume it.` : `${key.name || key.prefix} works again.`,
      });
      await keys.reload();
    } catch (error) {
      notifications.show({ color: "red", title: "Could not change the key", message: (error as Error).message });
    }
  }
  const [revokeBusy, setRevokeBusy] = useState(false);
  const [revokeError, setRevokeError] = useState<string | null>(null);

  async function revoke() {
    if (!revoking) return;
    setRevokeBusy(true);
    setRevokeError(null);
    try {
      await api(`/api/user/keys/${encodeURIComponent(revoking.id)}`, { method: "DELETE" });
      notifications.show({ color: "teal", title: "Key revoked", message: `${revoking.name || revoking.prefix} no longer works.` });
      setRevoking(null);
      await keys.reload();
    } catch (error) {
      setRevokeError((error as Error).message);
    } finally {
      setRevokeBusy(false);
    }
  }

  const list = keys.data?.data ?? [];
  const createButton = (
    <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)} disabled={!self.data}>
      Create key
    </Button>
  );

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys let your programs call the gateway's /v1 endpoints. Each key spends from your balance."
        actions={createButton}
      />
      {keys.error ? <LoadError error={keys.error} onRetry={keys.reload} /> : null}
      {list.some((key) => key.status === "disabled" && key.disabledByOperator) ? (
        <Alert color="gray" variant="light" mb="md" icon={<IconAlertTriangle size={18} />} data-testid="operator-disabled-note">
          The gateway&apos;s operator disabled a key of yours: it is refused until an operator enables it again, and pausing or resuming it
          here does not change that.
        </Alert>
      ) : null}
      {keys.loading && !keys.data ? (
        <Loading label="Loading your keys…" />
      ) : keys.data && list.length === 0 ? (
        <Card withBorder radius="lg" py={48}>
          <EmptyState
            icon={<IconKey size={28} />}
            variant="light"
            title="No API keys yet"
            description="Create a key to call the API from your own code, with curl or with the official OpenAI and Anthropic SDKs."
          >
            <EmptyState.Actions>{createButton}</EmptyState.Actions>
          </EmptyState>
        </Card>
      ) : keys.data ? (
        <Card withBorder radius="lg" p={0}>
          <DataTable minWidth={900} verticalSpacing="sm" horizontalSpacing="sm" highlightOnHover data-testid="keys-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Key</Table.Th>
                <Table.Th>Group / models</Table.Th>
                <Table.Th>Spent</Table.Th>
                <Table.Th>Remaining</Table.Th>
                <Table.Th>Expires</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th w={60}>
                  <span className="visually-hidden">Actions</span>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((key) => (
                <Table.Tr key={key.id} data-testid="key-row">
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      <Text size="sm" fw={500}>
                        {key.name || (
                          <Text span c="dimmed" size="sm">
                            Unnamed
                          </Text>
                        )}
                      </Text>
                      {key.purpose === "playground" || key.name === LEGACY_PLAYGROUND_KEY_NAME ? (
                        <Badge size="xs" variant="light" color="violet">
                          playground
                        </Badge>
                      ) : null}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Code>{key.prefix}…</Code>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="outline" color="gray" size="sm" tt="none">
                      {key.group}
                    </Badge>
                    {key.models?.length ? (
                      <Tooltip label={key.models.join(", ")} multiline w={260}>
                        <Text size="xs" c="dimmed" data-testid="key-models">
                          {key.models.length === 1 ? key.models[0] : `${key.models.length} models`} only
                        </Text>
                      </Tooltip>
                    ) : null}
                  </Table.Td>
                  <Table.Td data-testid="key-spent">{usdPrecise(key.spent ?? 0)}</Table.Td>
                  <Table.Td>
                    {key.unlimited ? (
                      <Text size="sm" c="dimmed">
                        No limit
                      </Text>
                    ) : (
                      usd(key.quotaRemaining)
                    )}
                    {key.quotaByOperator && key.purpose !== "playground" ? (
                      <SetByOperator viewer="owner" testId="key-quota-by-operator" />
                    ) : null}
                  </Table.Td>
                  <Table.Td>
                    <Tooltip label={key.expiresAt ? new Date(key.expiresAt).toLocaleString() : "Never expires"} disabled={!key.expiresAt}>
                      <Text size="sm">{key.expiresAt ? dateOnly(key.expiresAt) : "Never"}</Text>
                    </Tooltip>
                    {key.operatorExpiresAt ? (
                      <SetByOperator viewer="owner" testId="key-expiry-by-operator">
                        {key.expiresAt === key.operatorExpiresAt
                          ? "set by the operator"
                          : `the operator's: ${dateOnly(key.operatorExpiresAt)}`}
                      </SetByOperator>
                    ) : null}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" c={key.lastUsedAt ? undefined : "dimmed"}>
                      {key.lastUsedAt ? relative(key.lastUsedAt) : "Never"}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <KeyStatus apiKey={key} viewer="owner" />
                  </Table.Td>
                  <Table.Td>
                    <Group gap={2} wrap="nowrap">
                      {key.purpose !== "playground" && (key.status === "active" || key.status === "disabled") ? (
                        <>
                          <Tooltip label="Edit name, expiry and cap">
                            <ActionIcon variant="subtle" aria-label={`Edit key ${key.name || key.prefix}`} onClick={() => setEditing(key)}>
                              <IconPencil size={16} />
                            </ActionIcon>
                          </Tooltip>
                          {/* Pause and resume are the owner's own switch: a resume cannot lift the operator's disable, so it is not offered then. */}
                          {!key.pausedByOwner ? (
                            <Tooltip label="Pause: refused until resumed">
                              <ActionIcon
                                variant="subtle"
                                aria-label={`Pause key ${key.name || key.prefix}`}
                                onClick={() => void setPaused(key, true)}
                              >
                                <IconPlayerPause size={16} />
                              </ActionIcon>
                            </Tooltip>
                          ) : !key.disabledByOperator ? (
                            <Tooltip label="Resume">
                              <ActionIcon
                                variant="subtle"
                                aria-label={`Resume key ${key.name || key.prefix}`}
                                onClick={() => void setPaused(key, false)}
                              >
                                <IconPlayerPlay size={16} />
                              </ActionIcon>
                            </Tooltip>
                          ) : null}
                        </>
                      ) : null}
                      <Tooltip label="Revoke key">
                        <ActionIcon
                          variant="subtle"
                          color="red"
                          aria-label={`Revoke key ${key.name || key.prefix}`}
                          onClick={() => setRevoking(key)}
                        >
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

      <EditKeyModal
        apiKey={editing}
        onClose={() => setEditing(null)}
        onSaved={() => {
          setEditing(null);
          notifications.show({ color: "teal", title: "Key saved", message: "The change applies at once." });
          void keys.reload();
        }}
      />
      {self.data ? (
        <CreateKeyModal
          opened={creating}
          onClose={() => setCreating(false)}
          groups={self.data.groups}
          onCreated={(key) => {
            setCreating(false);
            setCreated(key);
            void keys.reload();
          }}
        />
      ) : null}
      <NewKeyModal created={created} onClose={() => setCreated(null)} />
      <Modal opened={revoking !== null} onClose={() => setRevoking(null)} title={<Text fw={600}>Revoke this key?</Text>} centered>
        {revoking ? (
          <Stack gap="md">
            <Text size="sm">
              <b>{revoking.name || "Unnamed key"}</b> (<Code>{revoking.prefix}…</Code>) stops working at once. Programs that use it get 401
              errors. This cannot be undone.
            </Text>
            <FormError message={revokeError} />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setRevoking(null)}>
                Keep it
              </Button>
              <Button color="red" onClick={() => void revoke()} loading={revokeBusy}>
                Revoke key
              </Button>
            </Group>
          </Stack>
        ) : null}
      </Modal>
    </>
  );
}
