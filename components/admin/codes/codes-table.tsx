"use client";
// The codes shown (the first 500 of the filtered list): prefix, batch, value, status, expiry, who redeemed it.
import { ActionIcon, Badge, Code, Table, Text } from "@mantine/core";
import { IconBan } from "@tabler/icons-react";
import { count, dateOnly, dateTime, usd } from "@/lib/portal/format";
import type { AdminRedeemCode } from "@/lib/portal/types";
import { StatusBadge } from "@/components/feedback";
import { DataTable } from "@/components/data-table";

export function CodesTable({
  codes,
  redeemer,
  onVoid,
}: {
  codes: AdminRedeemCode[];
  redeemer: (code: AdminRedeemCode) => string | null;
  onVoid: (code: AdminRedeemCode) => void;
}) {
  return (
    <>
      <DataTable minWidth={820} verticalSpacing="xs" horizontalSpacing="md" highlightOnHover data-testid="codes-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Code</Table.Th>
            <Table.Th>Batch</Table.Th>
            <Table.Th ta="right">Value</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Expires</Table.Th>
            <Table.Th>Redeemed</Table.Th>
            <Table.Th w={60}>
              <span className="visually-hidden">Actions</span>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {codes.slice(0, 500).map((code) => (
            <Table.Tr key={code.id} data-testid="code-row">
              <Table.Td>
                <Code>{code.prefix}…</Code>
              </Table.Td>
              <Table.Td>
                <Text size="sm" ff="monospace">
                  {code.batch}
                </Text>
              </Table.Td>
              <Table.Td ta="right">{usd(code.quota)}</Table.Td>
              <Table.Td>
                <StatusBadge status={code.status}>{code.status === "disabled" ? "Voided" : code.status}</StatusBadge>
              </Table.Td>
              <Table.Td>
                {code.expiresAt ? (
                  dateOnly(code.expiresAt)
                ) : (
                  <Text size="sm" c="dimmed">
                    never
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                {code.redeemedAt ? (
                  <Text size="sm">
                    {dateTime(code.redeemedAt)}
                    <Text span size="xs" c="dimmed">
                      {" "}
                      by {redeemer(code) ?? "?"}
                    </Text>
                  </Text>
                ) : (
                  <Text size="sm" c="dimmed">
                    —
                  </Text>
                )}
              </Table.Td>
              <Table.Td>
                {code.status === "unused" ? (
                  <ActionIcon variant="subtle" color="red" aria-label={`Void code ${code.prefix}`} onClick={() => onVoid(code)}>
                    <IconBan size={16} />
                  </ActionIcon>
                ) : null}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </DataTable>
      {codes.length > 500 ? (
        <Text size="xs" c="dimmed" p="md">
          Showing 500 of {count(codes.length)}; the CSV has all of them. <Badge size="xs">filter by batch</Badge>
        </Text>
      ) : null}
    </>
  );
}
