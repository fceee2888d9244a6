"use client";
// One ledger row in full (GET /api/admin/usage/{id}): when and how long (queue, the upstream's first byte, total),
// the tokens by kind, the price that charged it (price row, modifiers, output rule), the channel that served it and the
// channels tried before it with their errors.
import { Alert, Badge, Code, Drawer, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useApi } from "@/lib/portal/api";
import { count, dateTime, latency, usdPrecise } from "@/lib/portal/format";
import type { AdminUsageDetail, AdminUsageRow } from "@/lib/portal/types";
import { LedgerAmount, LedgerStatus, LoadError, Loading } from "@/components/feedback";

function Facts({ rows, label }: { rows: [string, React.ReactNode][]; label: string }) {
  return (
    <Table verticalSpacing={4} fz="sm" aria-label={label}>
      <Table.Tbody>
        {rows.map(([name, value]) => (
          <Table.Tr key={name}>
            <Table.Th w="45%" fw={500} c="dimmed">
              {name}
            </Table.Th>
            <Table.Td>{value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

const ms = (value: number | null) => (value === null ? "not recorded" : latency(value));

function Detail({ detail }: { detail: AdminUsageDetail }) {
  const { row, timing, pricing } = detail;
  const price = pricing.price as Record<string, unknown> | null;
  return (
    <Stack gap="md">
      <Facts
        label="Request"
        rows={[
          ["When", dateTime(row.createdAt)],
          ["User", detail.userEmail ?? row.userId],
          ["Key", row.keyPrefix ? `${detail.keyName ? `${detail.keyName} · ` : ""}${row.keyPrefix}…` : "—"],
          ["Model", row.kind === "request" ? <Code key="model">{row.model}</Code> : row.kind === "topup" ? "Redeem code" : "Adjustment"],
          ["Endpoint", `${row.endpoint}${row.stream ? " · stream" : ""}`],
          ["Request id", <Code key="id">{row.requestId}</Code>],
          ["Status", <LedgerStatus key="status" row={row} />],
          ["Cost", <LedgerAmount key="cost" cost={row.cost} />],
          ["Reserved", usdPrecise(row.reserved)],
        ]}
      />
      {row.error ? (
        <Alert color="red" variant="light" title="Error">
          {row.error}
        </Alert>
      ) : null}
      {row.kind === "request" ? (
        <>
          <Title order={3} fz="md">
            Timing
          </Title>
          <Facts
            label="Timing"
            rows={[
              ["Queue (until the first upstream attempt)", ms(timing.queueMs)],
              ["Upstream first byte", ms(timing.firstByteMs)],
              ["Total", ms(timing.totalMs)],
            ]}
          />
          <Title order={3} fz="md">
            Tokens
          </Title>
          <Facts label="Tokens" rows={detail.counts.map((entry) => [entry.label, count(entry.count)])} />
          <Title order={3} fz="md">
            Pricing
          </Title>
          <Facts
            label="Pricing"
            rows={[
              [
                "Price row",
                price ? (
                  <Text key="price" size="sm">
                    {String(price.model)} v{pricing.priceVersion}: input ${String(price.textInput)} / output ${String(price.textOutput)} per
                    1M
                    {Number(price.cacheReadMultiplier) !== 1 ? ` · cache reads ×${String(price.cacheReadMultiplier)}` : ""}
                    {price.tierThreshold
                      ? ` · above ${count(Number(price.tierThreshold))} tokens: $${String(price.tierTextInput)} / $${String(price.tierTextOutput)}`
                      : ""}
                  </Text>
                ) : (
                  `version ${pricing.priceVersion}${pricing.currentVersion !== null ? ` (the price has changed since: now version ${pricing.currentVersion})` : ""}`
                ),
              ],
              [
                "Price modifiers",
                pricing.modifiers.length
                  ? pricing.modifiers.map((modifier) => `${modifier.name} ×${modifier.multiplier}`).join(", ")
                  : "none",
              ],
              [
                "Output counted by",
                pricing.rule === "meter"
                  ? "the gateway's meter of what it delivered"
                  : pricing.rule === "usage"
                    ? "the upstream's usage report"
                    : "—",
              ],
              ...pricing.parts.map((part, index): [string, React.ReactNode] => [`Part ${index + 1}: ${part.model}`, usdPrecise(part.cost)]),
            ]}
          />
          <Title order={3} fz="md">
            Channels
          </Title>
          <Stack gap={6} data-testid="ledger-failovers">
            {detail.failovers.map((failover) => (
              <Group key={`${failover.channel}-${failover.ms}-${failover.status}`} gap="xs" wrap="nowrap" align="flex-start">
                <Badge color="red" variant="light" size="sm" style={{ flexShrink: 0 }}>
                  tried · {failover.status}
                </Badge>
                <Text size="sm">
                  <b>{failover.channel}</b>
                  {failover.ms !== null ? ` after ${latency(failover.ms)}` : ""}: {failover.error}
                </Text>
              </Group>
            ))}
            <Group gap="xs" wrap="nowrap">
              <Badge color={row.status === "success" ? "teal" : "gray"} variant="light" size="sm">
                {row.status === "success" ? "served" : "last tried"}
              </Badge>
              <Text size="sm" fw={600}>
                {row.channelName ?? "no channel"}
              </Text>
            </Group>
            {detail.failovers.length === 0 ? (
              <Text size="xs" c="dimmed">
                No failover: the first channel tried answered.
              </Text>
            ) : null}
          </Stack>
        </>
      ) : null}
    </Stack>
  );
}

export function LedgerRowDrawer({ row, email, onClose }: { row: AdminUsageRow | null; email: string | null; onClose: () => void }) {
  const detail = useApi<AdminUsageDetail>(row ? `/api/admin/usage/${encodeURIComponent(row.id)}` : null);
  return (
    <Drawer
      opened={row !== null}
      onClose={onClose}
      position="right"
      size="lg"
      title={
        row ? `${row.kind === "request" ? row.model : row.kind === "topup" ? "Redeem code" : "Adjustment"} · ${email ?? row.userId}` : ""
      }
      data-testid="ledger-drawer"
    >
      {detail.error ? <LoadError error={detail.error} onRetry={detail.reload} /> : null}
      {detail.data && row && detail.data.row.id === row.id ? <Detail detail={detail.data} /> : detail.error ? null : <Loading />}
    </Drawer>
  );
}
