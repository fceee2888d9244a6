"use client";
// The limits beside a key's cap in the owner's key dialogs (create and edit): a budget per calendar period in UTC,
// the addresses it may be used from (one per line), and its requests per minute, shown (the operator sets them).
// One row of rate limits, so token limits can sit beside requests per minute. The rules: docs/api.md, "Key budgets
// and allowed addresses".
import { Group, NumberInput, Select, SimpleGrid, Text, Textarea } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { usd } from "@/lib/portal/format";

export type LimitValues = { budget: number | string; budgetPeriod: string; allowedIps: string };

export const PERIOD_CHOICES = [
  { value: "day", label: "per day" },
  { value: "week", label: "per week" },
  { value: "month", label: "per month" },
];

/** The allowlist as the API takes it: one entry per line, blanks dropped. */
export function ipLines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);
}

export function KeyLimitsFields<T extends LimitValues>({
  form,
  operator,
  rateLimitPerMinute,
}: {
  form: UseFormReturnType<T>;
  /** What the operator set, which the owner may tighten, never loosen. */
  operator?: { budget: number | null; budgetPeriod: string; allowedIps: string[] };
  /** The key's own requests per minute (null: the group's). */
  rateLimitPerMinute?: number | null;
}) {
  const budgetLocked = operator?.budget !== null && operator?.budget !== undefined;
  return (
    <>
      <Group grow align="flex-start" gap="sm">
        <NumberInput
          label="Budget (USD)"
          description={
            budgetLocked
              ? `The operator set ${usd(operator!.budget!)} ${PERIOD_CHOICES.find((entry) => entry.value === operator!.budgetPeriod)?.label}: you may lower it.`
              : "Empty: no budget. Resets each period (UTC)."
          }
          min={0.01}
          max={budgetLocked ? operator!.budget! / 1_000_000 : undefined}
          decimalScale={2}
          prefix="$"
          {...form.getInputProps("budget")}
          name="budget"
        />
        <Select
          label="Budget period"
          data={PERIOD_CHOICES}
          {...form.getInputProps("budgetPeriod")}
          allowDeselect={false}
          disabled={budgetLocked}
          name="budgetPeriod"
        />
      </Group>
      <Textarea
        label="Allowed addresses"
        description={
          operator?.allowedIps.length
            ? `One address or CIDR per line, inside the operator's: ${operator.allowedIps.join(", ")}.`
            : "One IPv4 or IPv6 address or CIDR per line (203.0.113.0/24). Empty: any address."
        }
        autosize
        minRows={2}
        maxRows={6}
        {...form.getInputProps("allowedIps")}
        name="allowedIps"
      />
      <SimpleGrid cols={2} spacing="sm" data-testid="key-rate-limits">
        <div>
          <Text size="sm" fw={500}>
            Requests per minute
          </Text>
          <Text size="sm" c="dimmed" data-testid="key-rpm">
            {rateLimitPerMinute ? `${rateLimitPerMinute} (set by the operator)` : "The group's limit"}
          </Text>
        </div>
      </SimpleGrid>
    </>
  );
}
