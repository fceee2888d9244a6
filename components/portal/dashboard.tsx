"use client";
// Dashboard: balance, spend today and this month, a chart of daily spend and one of daily requests by model
// (from /api/user/usage daily totals; one call per model for the by-model chart), and the latest ledger rows.
import { useEffect, useMemo, useState } from "react";
import Link from "next/link";
import { BarChart } from "@mantine/charts";
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
import { ALL_MODELS } from "@/lib/catalog/models";
import { api, useApi } from "@/lib/portal/api";
import { count, dateTime, usd, usdPrecise, utcDay } from "@/lib/portal/format";
import type { ApiKey, DailyTotal, Self, UsagePage } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { LoadError, StatusBadge } from "@/components/feedback";

const DAYS = 30;
const MODEL_COLORS = ["indigo.6", "teal.6", "orange.6", "grape.6", "cyan.6", "pink.6", "lime.6", "yellow.6", "blue.6", "red.6"];

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

function shortDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString("en-GB", { month: "short", day: "numeric", timeZone: "UTC" });
}

function StatCard({
  label,
  value,
  hint,
  icon,
  loading,
  testId,
}: {
  label: string;
  value: string;
  hint?: string;
  icon: React.ReactNode;
  loading: boolean;
  testId?: string;
}) {
  return (
    <Card withBorder padding="lg" radius="lg">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={4}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
            {label}
          </Text>
          {loading ? (
            <Skeleton h={30} w={120} />
          ) : (
            <Text fz={28} fw={700} lh={1.2} data-testid={testId}>
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

type ByModel = { models: string[]; rows: Record<string, number | string>[] } | null;

export function Dashboard({ welcome }: { welcome: boolean }) {
  const [now] = useState(() => new Date());
  const from = useMemo(() => utcDay(rangeStart(now)), [now]);
  const self = useApi<Self>("/api/user/self");
  const usage = useApi<UsagePage>(`/api/user/usage?limit=6&from=${from}`);
  const keys = useApi<{ data: ApiKey[] }>("/api/user/keys");
  const [byModel, setByModel] = useState<ByModel>(null);
  const [byModelError, setByModelError] = useState<Error | null>(null);

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

  // Requests by model: the daily totals filtered by each model that appears in the account's history.
  useEffect(() => {
    if (!usage.data) return;
    if (totalRequests === 0) {
      setByModel({ models: [], rows: [] });
      return;
    }
    const candidates = [...new Set([...ALL_MODELS, ...usage.data.data.map((row) => row.model).filter(Boolean)])];
    let cancelled = false;
    Promise.all(
      candidates.map(async (model) => {
        const page = await api<UsagePage>(`/api/user/usage?kind=request&limit=1&from=${days[0]}&model=${encodeURIComponent(model)}`);
        return { model, daily: page.daily };
      }),
    )
      .then((results) => {
        if (cancelled) return;
        const used = results.filter((result) => result.daily.some((day) => day.requests > 0));
        const rows = days.map((day) => {
          const row: Record<string, number | string> = { date: shortDay(day) };
          for (const result of used) row[result.model] = result.daily.find((entry) => entry.date === day)?.requests ?? 0;
          return row;
        });
        setByModel({ models: used.map((result) => result.model), rows });
      })
      .catch((error: Error) => !cancelled && setByModelError(error));
    return () => {
      cancelled = true;
    };
  }, [usage.data, totalRequests, days]);

  const today = utcDay(now);
  const month = today.slice(0, 7);
  const find = (day: string): DailyTotal | undefined => daily.find((entry) => entry.date === day);
  const spentToday = find(today)?.spent ?? 0;
  const spentMonth = daily.filter((entry) => entry.date.startsWith(month)).reduce((sum, entry) => sum + entry.spent, 0);
  const spendRows = days.map((day) => ({ date: shortDay(day), Spend: (find(day)?.spent ?? 0) / 1_000_000 }));
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
          value={usd(self.data?.balance ?? 0)}
          hint="Available for requests"
          icon={<IconWallet size={22} />}
          loading={loading}
          testId="stat-balance"
        />
        <StatCard
          label="Spent today"
          value={usdPrecise(spentToday)}
          hint={`UTC ${today}`}
          icon={<IconClockHour4 size={22} />}
          loading={usage.loading && !usage.data}
          testId="stat-today"
        />
        <StatCard
          label="Spent this month"
          value={usd(spentMonth)}
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
            <BarChart
              h={260}
              data={spendRows}
              dataKey="date"
              series={[{ name: "Spend", color: "indigo.6" }]}
              valueFormatter={(value) => usd(Math.round(value * 1_000_000))}
              gridAxis="y"
              tickLine="none"
              maxBarWidth={18}
              role="img"
              aria-label="Daily spend chart"
            />
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
          {byModelError ? (
            <LoadError error={byModelError} />
          ) : !byModel ? (
            <Skeleton h={260} />
          ) : byModel.models.length === 0 ? (
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
            <BarChart
              h={260}
              data={byModel.rows}
              dataKey="date"
              type="stacked"
              maxBarWidth={18}
              series={byModel.models.map((model, index) => ({ name: model, color: MODEL_COLORS[index % MODEL_COLORS.length]! }))}
              withLegend
              yAxisProps={{ allowDecimals: false }}
              legendProps={{ verticalAlign: "bottom", height: 40 }}
              gridAxis="y"
              tickLine="none"
              role="img"
              aria-label="Requests by model chart"
            />
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
          <Table.ScrollContainer minWidth={560}>
            <Table verticalSpacing="sm" highlightOnHover>
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
                      {row.cost < 0 ? `+${usd(-row.cost)}` : usdPrecise(row.cost)}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Card>
    </>
  );
}
