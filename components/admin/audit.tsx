"use client";
// Operator: the audit trail (GET /api/admin/audit): every operator write, newest first, with who made it, what it
// was in words (`Channel "openai-main" updated`, the object's id below) and what changed (before → after; secrets
// only as "(not shown)"); filterable by who, kind of change and date.
import { useState } from "react";
import { Card, Code, SimpleGrid, Select, Stack, Table, Text, TextInput } from "@mantine/core";
import { useApi } from "@/lib/portal/api";
import { dateTime } from "@/lib/portal/format";
import type { AdminUser } from "@/lib/portal/types";
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
  kind: string | null;
  summary: string;
  detail: Record<string, unknown>;
};

const KINDS = [
  { value: "channel", label: "Channels" },
  { value: "group", label: "Groups" },
  { value: "price", label: "Prices" },
  { value: "settings", label: "Settings" },
  { value: "user", label: "Users" },
  { value: "key", label: "Keys" },
  { value: "code", label: "Redeem codes" },
  { value: "catalog", label: "Catalog" },
  { value: "moderation", label: "Content policy" },
];

const shown = (value: unknown): string =>
  value === null || value === undefined ? "—" : typeof value === "string" ? value : JSON.stringify(value);

/** The row's details as lines: each changed field "field: before → after", then any other value the call recorded. */
function Details({ detail }: { detail: Record<string, unknown> }) {
  const { name: _name, changes, ...rest } = detail;
  const lines = [
    ...Object.entries((changes && typeof changes === "object" ? changes : {}) as Record<string, { before: unknown; after: unknown }>).map(
      ([field, change]) => `${field}: ${shown(change?.before)} → ${shown(change?.after)}`,
    ),
    ...Object.entries(rest).map(([field, value]) => `${field}: ${shown(value)}`),
  ];
  if (!lines.length) return <Text size="xs">—</Text>;
  return (
    <Stack gap={2}>
      {lines.map((line) => (
        <Text key={line} size="xs" style={{ wordBreak: "break-word" }}>
          {line}
        </Text>
      ))}
    </Stack>
  );
}

export function AuditAdmin() {
  const [actor, setActor] = useState<string | null>(null);
  const [kind, setKind] = useState<string | null>(null);
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const params = new URLSearchParams({ limit: "500" });
  if (actor) params.set("actor", actor);
  if (kind) params.set("kind", kind);
  if (from) params.set("from", from);
  if (to) params.set("to", to);
  const rows = useApi<{ data: AuditRow[] }>(`/api/admin/audit?${params}`);
  const admins = useApi<{ data: AdminUser[] }>("/api/admin/users?limit=1000");
  const actors = ["master key", ...(admins.data?.data ?? []).filter((user) => user.role === "admin").map((user) => user.email)];
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change an operator made, through this portal or with the master key, newest first."
      />
      <Card withBorder radius="lg" padding="sm" mb="sm">
        <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="xs" verticalSpacing={4}>
          <Select size="xs" label="Who" placeholder="Anyone" data={actors} value={actor} onChange={setActor} clearable searchable />
          <Select size="xs" label="Kind of change" placeholder="All" data={KINDS} value={kind} onChange={setKind} clearable />
          <TextInput size="xs" type="date" label="From" value={from} onChange={(event) => setFrom(event.currentTarget.value)} />
          <TextInput size="xs" type="date" label="To (through the day)" value={to} onChange={(event) => setTo(event.currentTarget.value)} />
        </SimpleGrid>
      </Card>
      {rows.error ? <LoadError error={rows.error} onRetry={rows.reload} /> : null}
      {!rows.data ? (
        rows.error ? null : (
          <Loading />
        )
      ) : rows.data.data.length === 0 ? (
        <Text c="dimmed">{actor || kind || from || to ? "No changes match these filters." : "No operator changes yet."}</Text>
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
                  <Table.Td style={{ whiteSpace: "nowrap" }}>{dateTime(row.createdAt)}</Table.Td>
                  <Table.Td>{row.actor}</Table.Td>
                  <Table.Td>
                    <Text size="sm" fw={500}>
                      {row.summary}
                    </Text>
                    {row.targetId ? (
                      <Text size="xs" c="dimmed">
                        id <Code fz="xs">{row.targetId}</Code>
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td>
                    <Details detail={row.detail} />
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
