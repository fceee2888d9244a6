"use client";
// The Prices tab: one row per model with its rates per 1M tokens, the audio rate of a speech or transcription model
// (per 1M characters, per 1M seconds), its modifiers and its price version.
import { ActionIcon, Badge, Card, Group, Stack, Table, Text, Tooltip } from "@mantine/core";
import { IconEdit } from "@tabler/icons-react";
import type { AdminPrice } from "@/lib/portal/types";
import { formatPrice, formatPriceMicros } from "@/lib/portal/money-format";
import { DataTable } from "@/components/data-table";
import { audioRates } from "./price-form";

const money = formatPrice;

function AudioRates({ price, kind }: { price: AdminPrice; kind: string | undefined }) {
  const rates = audioRates(kind, price);
  if (!rates.length) {
    return (
      <Text size="sm" c="dimmed">
        —
      </Text>
    );
  }
  return (
    <Stack gap={0}>
      {rates.includes("characterInput") ? <Text size="sm">{money(price.characterInput)} per 1M characters</Text> : null}
      {rates.includes("audioInputSecond") ? (
        <Text size="sm">
          {money(price.audioInputSecond)} per 1M seconds{" "}
          <Text span size="xs" c="dimmed">
            ({formatPriceMicros(price.audioInputSecond * 60)} a minute)
          </Text>
        </Text>
      ) : null}
    </Stack>
  );
}

export function PricesTable({
  prices,
  kinds,
  onEdit,
}: {
  prices: AdminPrice[];
  kinds: Record<string, string>;
  onEdit: (price: AdminPrice) => void;
}) {
  return (
    <Card withBorder radius="lg" p={0}>
      <DataTable minWidth={960} verticalSpacing="sm" horizontalSpacing="md" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Model</Table.Th>
            <Table.Th ta="right">Text in</Table.Th>
            <Table.Th ta="right">Text out</Table.Th>
            <Table.Th ta="right">Image in</Table.Th>
            <Table.Th ta="right">Image out</Table.Th>
            <Table.Th>Audio</Table.Th>
            <Table.Th>Modifiers</Table.Th>
            <Table.Th ta="center">Version</Table.Th>
            <Table.Th w={60}>
              <span className="visually-hidden">Actions</span>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {prices.map((entry) => (
            <Table.Tr key={entry.id}>
              <Table.Td ff="monospace" fz="sm">
                {entry.model}
              </Table.Td>
              <Table.Td ta="right">{money(entry.textInput)}</Table.Td>
              <Table.Td ta="right">{money(entry.textOutput)}</Table.Td>
              <Table.Td ta="right">{money(entry.imageInput)}</Table.Td>
              <Table.Td ta="right">{money(entry.imageOutput)}</Table.Td>
              <Table.Td data-testid="audio-rate">
                <AudioRates price={entry} kind={kinds[entry.model]} />
              </Table.Td>
              <Table.Td>
                <Group gap={4} wrap="wrap">
                  {Object.keys(entry.modifiers ?? {}).length ? (
                    Object.entries(entry.modifiers ?? {}).map(([key, multiplier]) => (
                      <Badge key={key} variant="outline" color="gray" size="xs" tt="none">
                        {key} ×{multiplier}
                      </Badge>
                    ))
                  ) : (
                    <Text size="sm" c="dimmed">
                      none
                    </Text>
                  )}
                </Group>
              </Table.Td>
              <Table.Td ta="center">v{entry.version}</Table.Td>
              <Table.Td>
                <Tooltip label="Edit">
                  <ActionIcon variant="subtle" aria-label={`Edit price of ${entry.model}`} onClick={() => onEdit(entry)}>
                    <IconEdit size={16} />
                  </ActionIcon>
                </Tooltip>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </DataTable>
      <Text size="xs" c="dimmed" p="md">
        Per 1 million tokens; speech per 1 million characters, transcription per 1 million seconds of audio.
      </Text>
    </Card>
  );
}
