"use client";
// The key just created, shown this once with a copy button and a curl example that works when pasted.
import { Alert, Button, Group, Modal, Stack, Text } from "@mantine/core";
import { IconAlertTriangle } from "@tabler/icons-react";
import type { CreatedKey } from "@/lib/portal/types";
import { useBaseUrl } from "@/components/base-url";
import { CopyField } from "@/components/feedback";

export function NewKeyModal({ created, onClose }: { created: CreatedKey | null; onClose: () => void }) {
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
