"use client";
// The backup codes, shown once right after two-factor authentication is turned on: copy them or download them.
import { Alert, Button, Group, Paper, SimpleGrid, Stack, Text } from "@mantine/core";
import { IconDownload, IconShieldCheck } from "@tabler/icons-react";
import { download } from "@/lib/portal/csv";
import { CopyIcon } from "@/components/feedback";

export function BackupCodes({ codes, email, onDone }: { codes: string[]; email: string; onDone: () => void }) {
  const text = `Model Gateway backup codes for ${email}\nEach code works once, in place of an authenticator code.\n\n${codes.join("\n")}\n`;
  return (
    <Stack gap="md">
      <Alert color="teal" variant="light" icon={<IconShieldCheck size={18} />} title="Two-factor authentication is on">
        Save these backup codes now. Each one signs you in once if you lose your phone. They will not be shown again.
      </Alert>
      <Paper withBorder p="md" radius="md">
        <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs" data-testid="backup-codes">
          {codes.map((code) => (
            <Text key={code} ff="monospace" fz="md" fw={500} data-testid="backup-code">
              {code}
            </Text>
          ))}
        </SimpleGrid>
      </Paper>
      <Group justify="space-between" wrap="wrap">
        <Group gap="xs">
          <CopyIcon value={codes.join("\n")} label="Copy all codes" />
          <Button
            variant="default"
            size="xs"
            leftSection={<IconDownload size={14} />}
            onClick={() => download("model-gateway-backup-codes.txt", text, "text/plain;charset=utf-8")}
          >
            Download .txt
          </Button>
        </Group>
        <Button onClick={onDone}>I have saved them</Button>
      </Group>
    </Stack>
  );
}
