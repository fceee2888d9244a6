"use client";
// Dashboard: balance, spend today and this month, a chart of daily spend and one of daily requests by model
// (from /api/user/usage daily totals; one call per model for the by-model chart), and the latest ledger rows.
import { useEffect, useMemo, useState } from "react";
import Link from "next/link";
import {
  Anchor,
  Badge,
  Button,
  Card,
  EmptyState,
  Group,
  Paper,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  ThemeIcon,
  Title,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import {
  IconCalendarMonth,
  IconChartBar,
  IconCircleCheck,
  IconCircleDashed,
  IconClockHour4,
  IconSparkles,
  IconWallet,
} from "@tabler/icons-react";
import { useApi } from "@/lib/portal/api";
import { count, dateTime, usdPrecise, usdSummary, utcDay } from "@/lib/portal/format";
import { UsageChart } from "./usage-chart";
import type { ApiKey, DailyTotal, Self, UsagePage } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { LoadError, StatusBadge, LedgerAmount } from "@/components/feedback";
import { DataTable } from "@/components/data-table";

const DAYS = 30;

function rangeStart(now: Date): Date {
  const thirtyDays = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (DAYS - 1)));
  const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return thirtyDays < month ? thirtyDays : month;
}

/** Every UTC day of the last 30, oldest first, so the chart has no gaps on days without requests. */
function lastDays(now: Date): string[] {
  return Array.from({ length: DAYS }, (_unused, index) =>
    utcDay(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (DAYS - 1 - index)))),
  );
}

function StatCard({
  label,
  value,
  exact,
  hint,
  icon,
  loading,
  testId,
}: {
  label: string;
  value: string;
  /** The exact amount, shown on hover when `value` is rounded. */
  exact?: string;
  hint?: string;
  icon: React.ReactNode;
  loading: boolean;
  testId?: string;
}) {
  return (
    <Card withBorder padding="lg" radius="lg">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={4} miw={0}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
            {label}
          </Text>
          {loading ? (
            <Skeleton h={30} w={120} />
          ) : (
            <Text fz={{ base: 24, xl: 28 }} fw={700} lh={1.2} data-testid={testId} title={exact} style={{ overflowWrap: "anywhere" }}>
              {value}
            </Text>
          )}
          {hint ? (
            <Text size="xs" c="dimmed">
              {hint}
            </Text>
          ) : null}
        </Stack>
        <ThemeIcon size={42} radius="md" variant="light">
          {icon}
        </ThemeIcon>
      </Group>
    </Card>
  );
}

export function Dashboard({ welcome }: { welcome: boolean }) {
  const [now] = useState(() => new Date());
  const from = useMemo(() => utcDay(rangeStart(now)), [now]);
  const self = useApi<Self>("/api/user/self");
  const usage = useApi<UsagePage>(`/api/user/usage?limit=6&from=${from}`);
  const keys = useApi<{ data: ApiKey[] }>("/api/user/keys");

  useEffect(() => {
    if (welcome)
      notifications.show({
        title: "Welcome to Model Gateway",
        message: "Your account is ready. Redeem a code to add balance, then create a key.",
        color: "indigo",
      });
  }, [welcome]);

  const days = useMemo(() => lastDays(now), [now]);
  const daily = usage.data?.daily ?? [];
  const totalRequests = daily.reduce((sum, day) => sum + day.requests, 0);

  const today = utcDay(now);
  const month = today.slice(0, 7);
  const find = (day: string): DailyTotal | undefined => daily.find((entry) => entry.date === day);
  const spentToday = find(today)?.spent ?? 0;
  const spentMonth = daily.filter((entry) => entry.date.startsWith(month)).reduce((sum, entry) => sum + entry.spent, 0);
  const loading = self.loading && !self.data;

  const steps = [
    { done: (self.data?.balance ?? 0) > 0, label: "Add balance with a redeem code", href: "/redeem", action: "Redeem" },
    { done: (keys.data?.data.length ?? 0) > 0, label: "Create an API key", href: "/keys", action: "Create key" },
    { done: totalRequests > 0, label: "Make your first request in the playground", href: "/playground", action: "Open playground" },
  ];
  const allDone = steps.every((step) => step.done);

  return (
    <>
      <PageHeader
        title="Dashboard"
        description="Your balance, what you spent and what you called. Days are UTC days."
        actions={
          <>
            <Button variant="default" component={Link} href="/redeem">
              Add balance
            </Button>
            <Button component={Link} href="/playground" leftSection={<IconSparkles size={16} />}>
              Playground
            </Button>
          </>
        }
      />
      {self.error ? <LoadError error={self.error} onRetry={self.reload} /> : null}
      {usage.error ? <LoadError error={usage.error} onRetry={usage.reload} /> : null}

      <SimpleGrid cols={{ base: 1, xs: 2, lg: 4 }} spacing="md" mb="lg">
        <StatCard
          label="Balance"
          value={usdSummary(self.data?.balance ?? 0)}
          exact={usdPrecise(self.data?.balance ?? 0)}
          hint="Available for requests"
          icon={<IconWallet size={22} />}
          loading={loading}
          testId="stat-balance"
        />
        <StatCard
          label="Spent today"
          value={usdSummary(spentToday)}
          exact={usdPrecise(spentToday)}
          hint={`UTC ${today}`}
          icon={<IconClockHour4 size={22} />}
          loading={usage.loading && !usage.data}
          testId="stat-today"
        />
        <StatCard
          label="Spent this month"
          value={usdSummary(spentMonth)}
          exact={usdPrecise(spentMonth)}
          hint={new Date(`${today}T00:00:00Z`).toLocaleDateString("en-GB", { month: "long", year: "numeric", timeZone: "UTC" })}
          icon={<IconCalendarMonth size={22} />}
          loading={usage.loading && !usage.data}
          testId="stat-month"
        />
        <StatCard
          label="Requests"
          value={count(totalRequests)}
          hint="Since the start of the charts below"
          icon={<IconChartBar size={22} />}
          loading={usage.loading && !usage.data}
          testId="stat-requests"
        />
      </SimpleGrid>

      {!allDone && self.data && keys.data && usage.data ? (
        <Paper withBorder radius="lg" p="lg" mb="lg">
          <Title order={2} fz="lg" mb="sm">
            Get started
          </Title>
          <Stack gap="xs">
            {steps.map((step) => (
              <Group key={step.label} justify="space-between" wrap="wrap" gap="xs">
                <Group gap="sm" wrap="nowrap">
                  {step.done ? (
                    <IconCircleCheck size={20} color="var(--mantine-color-teal-6)" />
                  ) : (
                    <IconCircleDashed size={20} color="var(--mantine-color-gray-5)" />
                  )}
                  <Text size="sm" td={step.done ? "line-through" : undefined} c={step.done ? "dimmed" : undefined}>
                    {step.label}
                  </Text>
                </Group>
                {!step.done ? (
                  <Button size="xs" variant="light" component={Link} href={step.href}>
                    {step.action}
                  </Button>
                ) : null}
              </Group>
            ))}
          </Stack>
        </Paper>
      ) : null}

      <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md" mb="lg">
        <Card withBorder radius="lg" padding="lg">
          <Group justify="space-between" mb="md">
            <Title order={2} fz="lg">
              Daily spend
            </Title>
            <Badge variant="light">Last {DAYS} days</Badge>
          </Group>
          {usage.data ? (
            <UsageChart days={days} breakdown={usage.data.breakdown} measure="spent" split="none" label="Daily spend" />
          ) : (
            <Skeleton h={260} />
          )}
        </Card>
        <Card withBorder radius="lg" padding="lg">
          <Group justify="space-between" mb="md">
            <Title order={2} fz="lg">
              Requests by model
            </Title>
            <Badge variant="light">Last {DAYS} days</Badge>
          </Group>
          {usage.error ? (
            <LoadError error={usage.error} />
          ) : !usage.data ? (
            <Skeleton h={260} />
          ) : totalRequests === 0 ? (
            <EmptyState
              h={260}
              icon={<IconChartBar size={26} />}
              withIndicatorBackground
              title="No requests yet"
              description="Once you call the API, each day's requests appear here, by model."
            >
              <EmptyState.Actions>
                <Button size="xs" variant="light" component={Link} href="/playground">
                  Try the playground
                </Button>
              </EmptyState.Actions>
            </EmptyState>
          ) : (
            <UsageChart days={days} breakdown={usage.data.breakdown} measure="requests" split="model" label="Requests by model" />
          )}
        </Card>
      </SimpleGrid>

      <Card withBorder radius="lg" padding="lg">
        <Group justify="space-between" mb="sm">
          <Title order={2} fz="lg">
            Recent activity
          </Title>
          <Anchor component={Link} href="/usage" size="sm">
            All usage
          </Anchor>
        </Group>
        {!usage.data ? (
          <Skeleton h={120} />
        ) : usage.data.data.length === 0 ? (
          <Text size="sm" c="dimmed" py="md">
            Nothing yet. Requests, top-ups and adjustments show up here as they happen.
          </Text>
        ) : (
          <DataTable minWidth={560} verticalSpacing="sm" highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time</Table.Th>
                <Table.Th>What</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th ta="right">Amount</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {usage.data.data.map((row) => (
                <Table.Tr key={row.id}>
                  <Table.Td>{dateTime(row.createdAt)}</Table.Td>
                  <Table.Td>
                    {row.kind === "request" ? (
                      <Text size="sm">
                        <Text span ff="monospace" size="sm">
                          {row.model}
                        </Text>{" "}
                        <Text span c="dimmed" size="xs">
                          {row.endpoint}
                        </Text>
                      </Text>
                    ) : (
                      <Text size="sm">{row.kind === "topup" ? "Redeemed a code" : "Balance adjustment"}</Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge status={row.status} />
                  </Table.Td>
                  <Table.Td ta="right" c={row.cost < 0 ? "teal" : undefined} fw={500}>
                    <LedgerAmount cost={row.cost} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </DataTable>
        )}
      </Card>
    </>
  );
}
