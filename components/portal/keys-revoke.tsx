"use client";
// Revoke a key (DELETE /api/user/keys/{id}) after a confirmation: it stops working at once.
import { Button, Code, Group, Modal, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { api } from "@/lib/portal/api";
import { useApiForm } from "@/lib/portal/form";
import type { ApiKey } from "@/lib/portal/types";
import { FormError } from "@/components/feedback";

function ConfirmRevoke({ apiKey, onClose, onRevoked }: { apiKey: ApiKey; onClose: () => void; onRevoked: () => void }) {
  const { onSubmit, formError, submitting } = useApiForm({
    initialValues: {},
    submit: () => api(`/api/user/keys/${encodeURIComponent(apiKey.id)}`, { method: "DELETE" }),
    onSuccess: () => {
      notifications.show({ color: "teal", title: "Key revoked", message: `${apiKey.name || apiKey.prefix} no longer works.` });
      onRevoked();
    },
  });
  return (
    <form onSubmit={onSubmit} noValidate aria-label="Revoke this key">
      <Stack gap="md">
        <Text size="sm">
          <b>{apiKey.name || "Unnamed key"}</b> (<Code>{apiKey.prefix}…</Code>) stops working at once. Programs that use it get 401 errors.
          This cannot be undone.
        </Text>
        <FormError message={formError} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Keep it
          </Button>
          <Button type="submit" color="red" loading={submitting}>
            Revoke key
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export function RevokeKeyModal({ apiKey, onClose, onRevoked }: { apiKey: ApiKey | null; onClose: () => void; onRevoked: () => void }) {
  return (
    <Modal opened={apiKey !== null} onClose={onClose} title={<Text fw={600}>Revoke this key?</Text>} centered>
      {apiKey ? <ConfirmRevoke apiKey={apiKey} onClose={onClose} onRevoked={onRevoked} /> : null}
    </Modal>
  );
}
