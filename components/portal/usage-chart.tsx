"use client";
// A day-by-day bar chart of usage (spend or requests), stacked by model or by key, with a legend that wraps instead of
// being cut, and its numbers as a table for anyone who cannot read the bars (a disclosure under the chart).
import { BarChart } from "@mantine/charts";
import { Box, ColorSwatch, Group, Table, Text } from "@mantine/core";
import { DataTable } from "@/components/data-table";
import { count, usdPrecise } from "@/lib/portal/format";
import type { UsagePage } from "@/lib/portal/types";

export const SERIES_COLORS = ["indigo.6", "teal.6", "orange.6", "grape.6", "cyan.6", "pink.6", "lime.7", "yellow.7"];
const MAX_SERIES = SERIES_COLORS.length - 1;

export type Measure = "spent" | "requests";
export type Split = "model" | "key" | "none";

type Breakdown = UsagePage["breakdown"];

export function shortDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString("en-GB", { month: "short", day: "numeric", timeZone: "UTC" });
}

/** Every UTC day from `from` to `to` (YYYY-MM-DD, inclusive), oldest first, so the chart has no gaps. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = new Date(`${from}T00:00:00Z`); day <= new Date(`${to}T00:00:00Z`); day.setUTCDate(day.getUTCDate() + 1)) {
    days.push(day.toISOString().slice(0, 10));
    if (days.length > 400) break;
  }
  return days;
}

/** Rows per day with one number per series (the biggest series by total; the rest as "Other"), and the series. */
export function chartRows(days: string[], breakdown: Breakdown, measure: Measure, split: Split) {
  const nameOf = (entry: Breakdown[number]) =>
    split === "model" ? entry.model || "(none)" : split === "key" ? (entry.keyPrefix ? `${entry.keyPrefix}…` : "(no key)") : "Total";
  const totals = new Map<string, number>();
  for (const entry of breakdown) totals.set(nameOf(entry), (totals.get(nameOf(entry)) ?? 0) + entry[measure]);
  const ranked = [...totals.entries()].filter(([, total]) => total > 0).sort((a, b) => b[1] - a[1]);
  const kept = new Set(ranked.slice(0, ranked.length > MAX_SERIES + 1 ? MAX_SERIES : ranked.length).map(([name]) => name));
  const series = [...kept, ...(ranked.length > kept.size ? ["Other"] : [])];
  const rows = days.map((day) => {
    const row: Record<string, number | string> = { date: shortDay(day), day };
    for (const name of series) row[name] = 0;
    for (const entry of breakdown) {
      if (entry.date !== day) continue;
      const name = kept.has(nameOf(entry)) ? nameOf(entry) : "Other";
      row[name] = (row[name] as number) + (measure === "spent" ? entry.spent / 1_000_000 : entry.requests);
    }
    return row;
  });
  return { rows, series };
}

/** Axis labels: short enough to fit ("$0.0024", "$1.50", "$1.2K"); the tooltip and the table keep every digit. */
function axisUsd(value: number): string {
  if (value === 0) return "$0";
  // At least two decimals, as every other amount on the page ("$0.50", "$0.003", not "$0.5").
  if (value < 1) {
    const [whole, decimals = ""] = String(Number(value.toPrecision(2))).split(".");
    return `$${whole}.${decimals.padEnd(2, "0")}`;
  }
  if (value < 1000) return `$${value.toFixed(2)}`;
  return `$${(value / 1000).toFixed(1)}K`;
}

export function UsageChart({
  days,
  breakdown,
  measure,
  split,
  label,
  height = 260,
}: {
  days: string[];
  breakdown: Breakdown;
  measure: Measure;
  split: Split;
  label: string;
  height?: number;
}) {
  const { rows, series } = chartRows(days, breakdown, measure, split);
  const format = (value: number) => (measure === "spent" ? usdPrecise(Math.round(value * 1_000_000)) : count(value));
  const colored = series.map((name, index) => ({
    name,
    color: name === "Other" ? "gray.5" : SERIES_COLORS[index % SERIES_COLORS.length]!,
  }));
  const withData = rows.filter((row) => series.some((name) => (row[name] as number) > 0));
  // Nothing to draw: say so rather than show an empty grid.
  if (withData.length === 0)
    return (
      <Box h={Math.min(height, 120)} style={{ display: "grid", placeItems: "center" }} data-testid="chart-empty">
        <Text size="sm" c="dimmed" ta="center">
          Nothing in these days yet: {label.toLowerCase()} appears here once requests are made.
        </Text>
      </Box>
    );
  return (
    <Box>
      <BarChart
        h={height}
        data={rows}
        dataKey="date"
        type={series.length > 1 ? "stacked" : "default"}
        series={colored.length ? colored : [{ name: "Total", color: "indigo.6" }]}
        valueFormatter={format}
        yAxisProps={measure === "requests" ? { allowDecimals: false } : { tickFormatter: axisUsd, width: 64 }}
        gridAxis="y"
        tickLine="none"
        maxBarWidth={18}
        role="img"
        aria-label={`${label} chart; the numbers are in the table below it`}
      />
      {colored.length > 1 ? (
        <Group gap="md" mt="xs" wrap="wrap" data-testid="chart-legend">
          {colored.map((entry) => (
            <Group key={entry.name} gap={6} wrap="nowrap">
              <ColorSwatch color={`var(--mantine-color-${entry.color.replace(".", "-")})`} size={12} withShadow={false} />
              <Text size="xs" ff={split === "none" ? undefined : "monospace"}>
                {entry.name}
              </Text>
            </Group>
          ))}
        </Group>
      ) : null}
      <details className="chart-data">
        <summary>
          <Text span size="sm" c="indigo.8">
            {label} as a table
          </Text>
        </summary>
        {withData.length ? (
          <DataTable minWidth={120 + 110 * Math.max(1, series.length)} verticalSpacing={4} fz="sm" mt="xs" data-testid="chart-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Day</Table.Th>
                {series.map((name) => (
                  <Table.Th key={name} ta="right">
                    {name}
                  </Table.Th>
                ))}
                {series.length > 1 ? <Table.Th ta="right">Total</Table.Th> : null}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {withData.map((row) => (
                <Table.Tr key={row.day as string}>
                  <Table.Td>{row.date}</Table.Td>
                  {series.map((name) => (
                    <Table.Td key={name} ta="right">
                      {format(row[name] as number)}
                    </Table.Td>
                  ))}
                  {series.length > 1 ? (
                    <Table.Td ta="right" fw={600}>
                      {format(series.reduce((sum, name) => sum + (row[name] as number), 0))}
                    </Table.Td>
                  ) : null}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </DataTable>
        ) : (
          <Text size="sm" c="dimmed" mt="xs">
            Nothing in this range.
          </Text>
        )}
      </details>
    </Box>
  );
}
