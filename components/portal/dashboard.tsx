"use client";
// Dashboard: balance, spend today and this month, a chart of daily spend and one of daily requests by model
// (from /api/user/usage daily totals; one call per model for the by-model chart), and the latest ledger rows.
import { useEffect, useMemo, useState } from "react";
import Link from "next/link";
import { Badge, Button, Card, EmptyState, Group, SimpleGrid, Skeleton, Title } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { IconCalendarMonth, IconChartBar, IconClockHour4, IconSparkles, IconWallet } from "@tabler/icons-react";
import { useApi } from "@/lib/portal/api";
import { count, usdPrecise, usdSummary, utcDay } from "@/lib/portal/format";
import { UsageChart } from "./usage-chart";
import { GetStarted, RecentActivity, StatCard } from "./dashboard-cards";
import { DashboardAnnouncements } from "./dashboard-announcements";
import type { ApiKey, DailyTotal, Self, UsagePage } from "@/lib/portal/types";
import { PageHeader } from "@/components/page-header";
import { LoadError } from "@/components/feedback";

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
      <DashboardAnnouncements />
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

      {!allDone && self.data && keys.data && usage.data ? <GetStarted steps={steps} /> : null}

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

      <RecentActivity page={usage.data} />
    </>
  );
}
