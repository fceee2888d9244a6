"use client";
// The batches so far, with how many of their codes are used and their total value; a click filters the list.
import { Card, ScrollArea, Table, Text, Title } from "@mantine/core";
import { usd } from "@/lib/portal/format";
import type { BatchSummary } from "./use-code-list";

export function BatchesCard({ batches, onPick }: { batches: BatchSummary[]; onPick: (batch: string) => void }) {
  return (
    <Card withBorder radius="lg" padding="lg" h="100%">
      <Title order={2} fz="lg" mb="md">
        Batches
      </Title>
      {batches.length === 0 ? (
        <Text size="sm" c="dimmed">
          No codes yet.
        </Text>
      ) : (
        <ScrollArea.Autosize mah={220} type="auto">
          <Table verticalSpacing={6}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Batch</Table.Th>
                <Table.Th ta="right">Used</Table.Th>
                <Table.Th ta="right">Value</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {batches.map((entry) => (
                <Table.Tr key={entry.batch} style={{ cursor: "pointer" }} onClick={() => onPick(entry.batch)}>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {entry.batch || "(none)"}
                    </Text>
                  </Table.Td>
                  <Table.Td ta="right">
                    {entry.used}/{entry.total}
                  </Table.Td>
                  <Table.Td ta="right">{usd(entry.value)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea.Autosize>
      )}
    </Card>
  );
}
