"use client";
// Operator: the audit trail (GET /api/admin/audit): every operator write, newest first, with who made it.
import { Card, Code, Table, Text } from "@mantine/core";
import { useApi } from "@/lib/portal/api";
import { dateTime } from "@/lib/portal/format";
import { PageHeader } from "@/components/page-header";
import { LoadError, Loading } from "@/components/feedback";
import { DataTable } from "@/components/data-table";

type AuditRow = {
  id: string;
  createdAt: string;
  actor: string;
  action: string;
  path: string;
  targetId: string | null;
  status: number;
  detail: Record<string, unknown>;
};

export function AuditAdmin() {
  const rows = useApi<{ data: AuditRow[] }>("/api/admin/audit?limit=500");
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change an operator made, through this portal or with the master key, newest first."
      />
      {rows.error ? <LoadError error={rows.error} onRetry={rows.reload} /> : null}
      {!rows.data ? (
        <Loading />
      ) : rows.data.data.length === 0 ? (
        <Text c="dimmed">No operator changes yet.</Text>
      ) : (
        <Card withBorder radius="lg" p={0}>
          <DataTable minWidth={640} verticalSpacing="xs" horizontalSpacing="md" data-testid="audit-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Who</Table.Th>
                <Table.Th>What</Table.Th>
                <Table.Th>Details</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.data.data.map((row) => (
                <Table.Tr key={row.id} data-testid="audit-row">
                  <Table.Td>{dateTime(row.createdAt)}</Table.Td>
                  <Table.Td>{row.actor}</Table.Td>
                  <Table.Td>
                    <Code>{row.action}</Code>
                    {row.targetId ? (
                      <Text size="xs" c="dimmed">
                        {row.targetId}
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" style={{ wordBreak: "break-word" }}>
                      {Object.keys(row.detail).length ? JSON.stringify(row.detail) : "—"}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </DataTable>
        </Card>
      )}
    </>
  );
}
