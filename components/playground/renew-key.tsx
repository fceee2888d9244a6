"use client";
// Renewing the playground's key (POST /api/user/playground/renew, lib/account-api/playground.ts): asked first, saying
// what it does (a new key, the current one stops working at once, the spending cap starts again), then said as done,
// with the new key's prefix.
import { Alert, Button, Code, Group, Modal, Stack, Text } from "@mantine/core";
import { IconCheck } from "@tabler/icons-react";
import { usd } from "@/lib/portal/format";
import { FormError } from "@/components/feedback";

export type PlaygroundKey = { id: string; prefix: string; group: string; cap: number; remaining: number };

export function RenewKeyDialog({
  opened,
  current,
  cap,
  renewing,
  error,
  onConfirm,
  onClose,
}: {
  opened: boolean;
  current: PlaygroundKey | null;
  cap: number;
  renewing: boolean;
  error: string | null;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title="Renew the playground key?" centered>
      <Stack gap="sm">
        <Text size="sm">
          Renew makes a new key for the playground and revokes the current one
          {current ? (
            <>
              {" "}
              (<Code>{current.prefix}…</Code>)
            </>
          ) : null}
          : the old key stops working at once.
        </Text>
        <Text size="sm">
          The spending cap starts again at <strong>{usd(cap)}</strong>
          {current ? ` (${usd(current.remaining)} of it is left now)` : ""}. Your balance does not change: runs are still billed to it.
        </Text>
        <FormError message={error} />
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={onClose} disabled={renewing}>
            Cancel
          </Button>
          <Button onClick={onConfirm} loading={renewing}>
            Renew key
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** Said once Renew has made the new key. */
export function RenewNotice({ renewed, onClose }: { renewed: { key: PlaygroundKey; previous: string | null }; onClose: () => void }) {
  return (
    <Alert
      color="teal"
      variant="light"
      icon={<IconCheck size={18} />}
      title="Playground key renewed"
      withCloseButton
      closeButtonLabel="Dismiss"
      onClose={onClose}
      mt="md"
      data-testid="renew-notice"
    >
      <Text size="sm">
        The playground now runs with <Code>{renewed.key.prefix}…</Code>, its spending cap back to {usd(renewed.key.cap)}.
        {renewed.previous ? (
          <>
            {" "}
            The old key, <Code>{renewed.previous}…</Code>, no longer works.
          </>
        ) : null}
      </Text>
    </Alert>
  );
}
