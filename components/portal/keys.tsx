"use client";
// API keys: the list (keys-table.tsx: prefix, name, group, remaining quota, expiry, last used, status), create
// (keys-create.tsx; the full key is shown once, with a copy button, in keys-new-key.tsx), edit (edit-key.tsx), pause
// and resume, and revoke (keys-revoke.tsx). Everything goes through /api/user/keys, which only ever sees the
// signed-in user's own keys.
import { useState } from "react";
import { Alert, Button, Card, EmptyState } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconAlertTriangle, IconKey, IconPlus } from "@tabler/icons-react";
import { api, useApi } from "@/lib/portal/api";
import type { ApiKey, CreatedKey, Self } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { LoadError, Loading } from "@/components/feedback";
import { EditKeyModal } from "./edit-key";
import { CreateKeyModal } from "./keys-create";
import { NewKeyModal } from "./keys-new-key";
import { RevokeKeyModal } from "./keys-revoke";
import { KeysTable } from "./keys-table";

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
        <KeysTable list={list} onEdit={setEditing} onPause={(key, paused) => void setPaused(key, paused)} onRevoke={setRevoking} />
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
      <RevokeKeyModal
        apiKey={revoking}
        onClose={() => setRevoking(null)}
        onRevoked={() => {
          setRevoking(null);
          void keys.reload();
        }}
      />
    </>
  );
}
