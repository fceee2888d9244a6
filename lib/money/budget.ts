// A key's budget: a spend limit per calendar period in UTC (docs/billing.md, "Key budgets"). The counter
// (ApiKey.budgetSpent) is kept by the money store (lib/money/store.ts) under the same lock as the quota: a reservation
// is counted against it when it is taken and the unused part given back when it settles, so concurrent requests can
// never pass the budget by more than they can pass the quota. These are the calendar rules and the words for people.

export const BUDGET_PERIODS = ["day", "week", "month"] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

const DAY_MS = 86_400_000;

export function asBudgetPeriod(value: string): BudgetPeriod {
  return (BUDGET_PERIODS as readonly string[]).includes(value) ? (value as BudgetPeriod) : "month";
}

/** The start (epoch ms) of the period `at` falls in: a day from 00:00 UTC, a week from Monday 00:00 UTC, a month from the 1st. */
export function periodStart(period: BudgetPeriod, at: number): number {
  const date = new Date(at);
  const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  if (period === "day") return day;
  if (period === "week") return day - ((date.getUTCDay() + 6) % 7) * DAY_MS;
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/** When the period `at` falls in ends and the budget starts over (epoch ms). */
export function periodEnd(period: BudgetPeriod, at: number): number {
  const start = periodStart(period, at);
  if (period === "day") return start + DAY_MS;
  if (period === "week") return start + 7 * DAY_MS;
  const date = new Date(start);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/** What a key's counter holds for the period `at` falls in: nothing once a new period has begun. */
export function spentThisPeriod(key: { budgetSpent: number; budgetPeriodStart: number | null; budgetPeriod: BudgetPeriod }, at: number) {
  const start = key.budgetPeriodStart;
  return start === null || start < periodStart(key.budgetPeriod, at) ? 0 : key.budgetSpent;
}

const ADJECTIVE: Record<BudgetPeriod, string> = { day: "daily", week: "weekly", month: "monthly" };

/** "$5.00", or more digits for amounts that are not whole cents. */
export function formatBudgetUsd(micros: number): string {
  if (micros % 10_000 === 0) return `$${(micros / 1_000_000).toFixed(2)}`;
  return `$${(micros / 1_000_000).toFixed(6).replace(/0{1,3}$/, "")}`;
}

/** An ISO time without milliseconds: 2026-11-28T00:00:00Z. */
export function isoSecond(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** What a key's budget has left (micro-USD) in the period its `spent` counts. */
export function budgetLeft(budget: { limit: number; spent: number }): number {
  return Math.max(0, budget.limit - budget.spent);
}

/**
 * Money before work's refusal (docs/billing.md, "Money before work"): what the budget has left beside `clause`, what
 * the request would reserve at the least and that its body was not read, and when the budget starts over.
 */
export function budgetShortMessage(budget: { limit: number; period: BudgetPeriod; spent: number }, at: number, clause: string): string {
  const head = `This key's ${ADJECTIVE[budget.period]} budget of ${formatBudgetUsd(budget.limit)}`;
  return `${head} has ${formatBudgetUsd(budgetLeft(budget))} left and ${clause}; it resets at ${isoSecond(periodEnd(budget.period, at))}`;
}

/** The refusal of a request the budget cannot cover, saying when it starts over. */
export function budgetMessage(budget: { limit: number; period: BudgetPeriod; spent: number }, needed: number, at: number): string {
  const left = Math.max(0, budget.limit - budget.spent);
  const resets = isoSecond(periodEnd(budget.period, at));
  const head = `This key's ${ADJECTIVE[budget.period]} budget of ${formatBudgetUsd(budget.limit)}`;
  if (left === 0) return `${head} is spent; it resets at ${resets}`;
  return `${head} has ${formatBudgetUsd(left)} left and this request reserves up to ${formatBudgetUsd(needed)} (the most it can cost); it resets at ${resets}`;
}
