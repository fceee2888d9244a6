"use client";
// The codes of a batch just generated, shown once (only their hashes are stored): copy them or download a CSV.
import { Alert, Button, Code, Group, Modal, ScrollArea, Stack, Text } from "@mantine/core";
import { IconAlertTriangle, IconDownload } from "@tabler/icons-react";
import { download, toCsv } from "@/lib/portal/csv";
import { count, dateOnly, usd } from "@/lib/portal/format";
import type { CreatedCodes } from "@/lib/portal/types";
import { CopyIcon } from "@/components/feedback";

export function CreatedModal({ created, onClose }: { created: CreatedCodes | null; onClose: () => void }) {
  if (!created) return null;
  const csv = toCsv(created.codes, [
    { header: "code", value: (code) => code },
    { header: "value_usd", value: () => (created.quota / 1_000_000).toFixed(2) },
    { header: "batch", value: () => created.batch },
    { header: "expires_at", value: () => created.expiresAt ?? "" },
  ]);
  return (
    <Modal
      opened
      onClose={onClose}
      title={
        <Text fw={600}>
          {count(created.codes.length)} codes in batch {created.batch}
        </Text>
      }
      size="lg"
      centered
      closeOnClickOutside={false}
    >
      <Stack gap="md">
        <Alert color="orange" variant="light" icon={<IconAlertTriangle size={18} />}>
          These codes are shown once: only their hashes are stored. Download or copy them now.
        </Alert>
        <Text size="sm">
          Each is worth <b>{usd(created.quota)}</b>
          {created.expiresAt ? `, until ${dateOnly(created.expiresAt)}` : ", without expiry"}.
        </Text>
        <ScrollArea.Autosize mah={300} type="auto">
          <Code block data-testid="created-codes">
            {created.codes.join("\n")}
          </Code>
        </ScrollArea.Autosize>
        <Group justify="space-between">
          <Group gap="xs">
            <CopyIcon value={created.codes.join("\n")} label="Copy all codes" />
            <Button
              variant="default"
              leftSection={<IconDownload size={16} />}
              onClick={() => download(`redeem-codes-${created.batch}.csv`, csv)}
              data-testid="download-codes"
            >
              Download CSV
            </Button>
          </Group>
          <Button onClick={onClose}>Done</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
