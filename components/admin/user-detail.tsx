"use client";
// Operator: one user at a glance, in a drawer from the Users page: their keys (with what each has left, who stopped
// it: an operator, its owner or both, and which limits an operator set), their latest
// ledger rows, and what operators did to the account (the audit trail, lib/admin-api/audit.ts).
import { useState } from "react";
import { ActionIcon, Badge, Drawer, Stack, Table, Text, Title, Tooltip } from "@mantine/core";
import { IconAdjustments } from "@tabler/icons-react";
import { useApi } from "@/lib/portal/api";
import { dateOnly, dateTime, usd } from "@/lib/portal/format";
import type { AdminUsageRow, AdminUser, ApiKey } from "@/lib/portal/types";
import { LedgerAmount, LoadError, Loading, StatusBadge } from "@/components/feedback";
import { KeyStatus, SetByOperator } from "@/components/key-state";
import { KeyLimitsModal } from "./key-limits";

type AuditRow = { id: string; createdAt: string; actor: string; action: string; status: number };

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Stack gap="xs">
      <Title order={3} fz="md">
        {title}
      </Title>
      {children}
    </Stack>
  );
}

function Details({ user }: { user: AdminUser }) {
  const keys = useApi<{ data: ApiKey[] }>(`/api/admin/keys?userId=${encodeURIComponent(user.id)}`);
  const usage = useApi<{ data: AdminUsageRow[] }>(`/api/admin/usage?userId=${encodeURIComponent(user.id)}&limit=20`);
  const audit = useApi<{ data: AuditRow[] }>(`/api/admin/audit?targetId=${encodeURIComponent(user.id)}&limit=20`);
  const [limiting, setLimiting] = useState<ApiKey | null>(null);
  return (
    <Stack gap="lg">
      <Text size="sm" c="dimmed">
        Balance {usd(user.balance)} · 2FA {user.totpEnabled ? "on" : "off"} · joined {dateTime(user.createdAt)}
      </Text>
      <Section title="Keys">
        {keys.error ? <LoadError error={keys.error} onRetry={keys.reload} /> : null}
        {!keys.data ? (
          <Loading />
        ) : keys.data.data.length === 0 ? (
          <Text size="sm" c="dimmed">
            No keys.
          </Text>
        ) : (
          <Table verticalSpacing={6} data-testid="user-detail-keys">
            <Table.Tbody>
              {keys.data.data.map((key) => (
                <Table.Tr key={key.id}>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {key.prefix}…
                    </Text>
                    <Text size="xs" c="dimmed">
                      {key.name || "Unnamed"}{" "}
                      {key.purpose === "playground" ? (
                        // Never narrower than its word (a badge otherwise shrinks to "P…" in a tight cell).
                        <Badge size="xs" variant="light" color="violet" style={{ minWidth: "max-content" }}>
                          playground
                        </Badge>
                      ) : null}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{key.unlimited ? "no cap" : `${usd(key.quotaRemaining)} left`}</Text>
                    {key.quotaByOperator && key.purpose !== "playground" ? (
                      <SetByOperator viewer="operator" testId="key-quota-by-operator" />
                    ) : null}
                    {key.operatorExpiresAt ? (
                      <SetByOperator
                        viewer="operator"
                        testId="key-expiry-by-operator"
                      >{`expiry set by an operator: ${dateOnly(key.operatorExpiresAt)}`}</SetByOperator>
                    ) : null}
                    {key.budget !== null ? (
                      <Text size="xs" c="dimmed" data-testid="key-budget">
                        budget {usd(key.budget)} a {key.budgetPeriod}, {usd(key.budgetLeft ?? 0)} left
                      </Text>
                    ) : null}
                    {key.operatorAllowedIps.length ? (
                      <Text size="xs" c="dimmed" data-testid="key-allowed-ips">
                        from {key.operatorAllowedIps.join(", ")}
                      </Text>
                    ) : null}
                    {key.rateLimitPerMinute ? (
                      <Text size="xs" c="dimmed">
                        {key.rateLimitPerMinute} requests a minute
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td>
                    <KeyStatus apiKey={key} viewer="operator" />
                  </Table.Td>
                  <Table.Td>
                    {key.purpose !== "playground" && key.status !== "deleted" ? (
                      <Tooltip label="Budget, addresses and rate limit">
                        <ActionIcon variant="subtle" aria-label={`Limits of key ${key.prefix}`} onClick={() => setLimiting(key)}>
                          <IconAdjustments size={16} />
                        </ActionIcon>
                      </Tooltip>
                    ) : null}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Section>
      <KeyLimitsModal
        apiKey={limiting}
        onClose={() => setLimiting(null)}
        onSaved={() => {
          setLimiting(null);
          void keys.reload();
        }}
      />
      <Section title="Latest usage">
        {usage.error ? <LoadError error={usage.error} onRetry={usage.reload} /> : null}
        {!usage.data ? (
          <Loading />
        ) : usage.data.data.length === 0 ? (
          <Text size="sm" c="dimmed">
            Nothing yet.
          </Text>
        ) : (
          <Table verticalSpacing={6} data-testid="user-detail-usage">
            <Table.Tbody>
              {usage.data.data.map((row) => (
                <Table.Tr key={row.id}>
                  <Table.Td>
                    <Text size="sm">{row.kind === "request" ? row.model : row.kind === "topup" ? "Redeemed a code" : "Adjustment"}</Text>
                    <Text size="xs" c="dimmed">
                      {dateTime(row.createdAt)}
                    </Text>
                  </Table.Td>
                  <Table.Td ta="right">
                    <LedgerAmount cost={row.cost} />
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={row.status} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Section>
      <Section title="Operator actions">
        {audit.error ? <LoadError error={audit.error} onRetry={audit.reload} /> : null}
        {!audit.data ? (
          <Loading />
        ) : audit.data.data.length === 0 ? (
          <Text size="sm" c="dimmed">
            None.
          </Text>
        ) : (
          <Stack gap={4} data-testid="user-detail-audit">
            {audit.data.data.map((row) => (
              <Text size="sm" key={row.id}>
                {dateTime(row.createdAt)} · {row.actor}:{" "}
                {row.action.replace("/api/admin/users/{id}", "").replace(/^(\w+) $/, "$1 user") || row.action}
              </Text>
            ))}
          </Stack>
        )}
      </Section>
    </Stack>
  );
}

export function UserDetailDrawer({ user, onClose }: { user: AdminUser | null; onClose: () => void }) {
  return (
    <Drawer
      opened={user !== null}
      onClose={onClose}
      position="right"
      size="lg"
      title={<Text fw={600}>{user?.email}</Text>}
      closeButtonProps={{ "aria-label": "Close" }}
    >
      {user ? <Details user={user} /> : null}
    </Drawer>
  );
}
