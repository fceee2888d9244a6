"use client";
// The warning the channel form and the channel test show for a channel's models that have no price: the upstream may
// answer a test, but users are told such a model does not exist (docs/api.md, "Channels: testing"). Each name links to
// the Prices tab with a new price for it.
import Link from "next/link";
import { Alert, Anchor, Group, Text } from "@mantine/core";
import { IconAlertTriangle } from "@tabler/icons-react";

export function priceLink(model: string): string {
  return `/admin/groups?price=${encodeURIComponent(model)}`;
}

export function UnpricedNote({ models, compact = false }: { models: string[]; compact?: boolean }) {
  if (!models.length) return null;
  const links = (
    <Group gap={6} wrap="wrap" component="span">
      {models.map((model) => (
        <Anchor
          key={model}
          component={Link}
          href={priceLink(model)}
          size="xs"
          ff="monospace"
          c="inherit"
          underline="always"
          fw={600}
          aria-label={`Add a price for ${model}`}
        >
          {model}
        </Anchor>
      ))}
    </Group>
  );
  if (compact)
    return (
      <Text size="xs" c="orange.9" maw={280} data-testid="unpriced-models" component="div">
        No price, so users cannot call: {links}
      </Text>
    );
  return (
    <Alert
      color="orange"
      variant="light"
      icon={<IconAlertTriangle size={16} />}
      title="Models without a price"
      data-testid="unpriced-models"
    >
      <Text size="sm" mb={4}>
        Users are told these models do not exist until they have a price (a channel test still passes). Add a price:
      </Text>
      {links}
    </Alert>
  );
}
