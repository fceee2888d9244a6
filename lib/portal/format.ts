// Display formats shared by the portal's pages. Money is stored as integer micro-USD (1 unit = $0.000001).
export const MICROS_PER_USD = 1_000_000;

const usd2 = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 2 });
const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** A negative amount's sign is a true minus (U+2212), as in lib/portal/money-format.ts, never a hyphen. */
const MINUS = "\u2212";
function minus(text: string): string {
  return text.startsWith("-") ? `${MINUS}${text.slice(1)}` : text;
}

/** A balance or total: "$12.34"; amounts under a cent keep their significant digits ("$0.0061"). */
export function usd(micros: number): string {
  const value = micros / MICROS_PER_USD;
  if (value !== 0 && Math.abs(value) < 0.01) {
    return `${value < 0 ? MINUS : ""}$${Math.abs(value).toFixed(6).replace(/0+$/, "").replace(/\.$/, "")}`;
  }
  return minus(usd2.format(value));
}

const usdMicro = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 2, maximumFractionDigits: 6 });

/**
 * An amount that is what is left after requests spent from it (a balance, a key's remaining quota or budget): to the
 * micro-dollar, so it moves with every request as the spent figure beside it does ("$1.999856"), cents when whole.
 */
export function usdExact(micros: number): string {
  return minus(usdMicro.format(micros / MICROS_PER_USD));
}

/** A per-request cost, always with enough digits to see it: "$0.006144". */
export function usdPrecise(micros: number): string {
  const value = micros / MICROS_PER_USD;
  if (value === 0 || Math.abs(value) >= 1) return minus(usd2.format(value));
  return `${value < 0 ? MINUS : ""}$${Math.abs(value).toFixed(6)}`;
}

/**
 * A summary amount (the dashboard's cards, totals): cents from $1 up, four decimals below it, so a small spend stays
 * visible ("$0.0470") without the six-digit tail of a single request's cost.
 */
export function usdSummary(micros: number): string {
  const value = micros / MICROS_PER_USD;
  if (value === 0 || Math.abs(value) >= 1) return minus(usd2.format(value));
  return `${value < 0 ? MINUS : ""}$${Math.abs(value).toFixed(4)}`;
}

export function usdToMicros(dollars: number): number {
  return Math.round(dollars * MICROS_PER_USD);
}

export function count(value: number): string {
  return integer.format(value);
}

export function dateTime(value: string | Date | null | undefined): string {
  if (!value) return "—";
  const date = typeof value === "string" ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return "—";
  return date.toLocaleString("en-GB", { year: "numeric", month: "short", day: "2-digit", hour: "2-digit", minute: "2-digit" });
}

/** "27 Nov, 06:58": a ledger line's time, 24-hour (the year and seconds are in the row's detail). */
export function shortDateTime(value: string | Date | null | undefined): string {
  if (!value) return "—";
  const date = typeof value === "string" ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return "—";
  return date.toLocaleString("en-GB", {
    month: "short",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
}

/** "06:00": an hour on a chart's axis, 24-hour like every time in the portal. */
export function hourMinute(value: string | Date): string {
  const date = typeof value === "string" ? new Date(value) : value;
  return date.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
}

export function dateOnly(value: string | Date | null | undefined): string {
  if (!value) return "—";
  const date = typeof value === "string" ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return "—";
  return date.toLocaleDateString("en-GB", { year: "numeric", month: "short", day: "2-digit" });
}

/** "3 minutes ago", "in 2 days"; "—" for none. */
export function relative(value: string | Date | null | undefined, now = Date.now()): string {
  if (!value) return "—";
  const time = (typeof value === "string" ? new Date(value) : value).getTime();
  if (Number.isNaN(time)) return "—";
  const seconds = Math.round((time - now) / 1000);
  const format = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
  const steps: [Intl.RelativeTimeFormatUnit, number][] = [
    ["year", 365 * 86400],
    ["month", 30 * 86400],
    ["day", 86400],
    ["hour", 3600],
    ["minute", 60],
  ];
  for (const [unit, size] of steps) if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  return Math.abs(seconds) < 10 ? "just now" : format.format(seconds, "second");
}

export function latency(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${count(ms)} ms`;
}

/** YYYY-MM-DD of a Date in UTC (the ledger's days are UTC days). */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
