// The title row of every portal page: title, one line of what the page is for, and the page's main actions.
import type { ReactNode } from "react";
import { Group, Stack, Text, Title } from "@mantine/core";

export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <Group justify="space-between" align="flex-end" mb="lg" gap="md" wrap="wrap">
      <Stack gap={4} style={{ minWidth: 0, flex: "1 1 320px" }}>
        <Title order={1} fz={{ base: 24, sm: 28 }}>
          {title}
        </Title>
        {description ? (
          <Text c="dimmed" size="sm" maw={720}>
            {description}
          </Text>
        ) : null}
      </Stack>
      {actions ? <Group gap="sm">{actions}</Group> : null}
    </Group>
  );
}
