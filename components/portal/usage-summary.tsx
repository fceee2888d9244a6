"use client";
// The Usage page's summary: totals of every row the filters match, and the days of the range as a chart by model
// or key.
import { useState } from "react";
import { Card, Group, SegmentedControl, SimpleGrid, Text } from "@mantine/core";
import { count, usdPrecise, usdSummary } from "@/lib/portal/format";
import type { UsagePage as UsagePageData } from "@/lib/portal/types";
import { daysBetween, shortDay, UsageChart, type Measure, type Split } from "./usage-chart";

/** Totals of every row the filters match, and the days of the range as a chart by model or key. */
export function UsageSummary({ page }: { page: UsagePageData }) {
  const [measure, setMeasure] = useState<Measure>("spent");
  const [split, setSplit] = useState<Split>("model");
  const { totals } = page;
  const days = daysBetween(
    page.dailyRange.from.slice(0, 10),
    new Date(new Date(page.dailyRange.to).getTime() - 1).toISOString().slice(0, 10),
  );
  return (
    <Card withBorder radius="lg" padding="lg" mb="md" data-testid="usage-summary">
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="md" mb="md">
        <Total label="Requests" value={count(totals.requests)} testId="total-requests" />
        <Total label="Spent" value={usdSummary(totals.spent)} exact={usdPrecise(totals.spent)} testId="total-spent" />
        <Total label="Credited" value={usdSummary(totals.credited)} exact={usdPrecise(totals.credited)} testId="total-credited" />
        <Total
          label="Tokens in / out"
          value={`${count(totals.textInputTokens + totals.imageInputTokens)} / ${count(totals.textOutputTokens + totals.imageOutputTokens)}`}
          testId="total-tokens"
        />
      </SimpleGrid>
      <Text size="xs" c="dimmed" mb="md">
        Totals of {totals.rows === 1 ? "the one row" : `all ${count(totals.rows)} rows`} that match the filters. The chart shows{" "}
        {shortDay(days[0] ?? "")} to {shortDay(days[days.length - 1] ?? "")} (UTC); set From and To for another range.
      </Text>
      <Group justify="space-between" mb="sm" wrap="wrap" gap="sm">
        <SegmentedControl
          size="xs"
          value={measure}
          onChange={(value) => setMeasure(value as Measure)}
          data={[
            { value: "spent", label: "Spend" },
            { value: "requests", label: "Requests" },
          ]}
          aria-label="What the chart shows"
        />
        <SegmentedControl
          size="xs"
          value={split}
          onChange={(value) => setSplit(value as Split)}
          data={[
            { value: "model", label: "By model" },
            { value: "key", label: "By key" },
            { value: "none", label: "Total" },
          ]}
          aria-label="How the chart is split"
        />
      </Group>
      <UsageChart
        days={days}
        breakdown={page.breakdown}
        measure={measure}
        split={split}
        label={`${measure === "spent" ? "Spend" : "Requests"} ${split === "model" ? "by model" : split === "key" ? "by key" : "per day"}`}
        height={220}
      />
    </Card>
  );
}

function Total({ label, value, exact, testId }: { label: string; value: string; exact?: string; testId: string }) {
  return (
    <div>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text fz="xl" fw={700} title={exact} data-testid={testId} style={{ overflowWrap: "anywhere" }}>
        {value}
      </Text>
    </div>
  );
}
