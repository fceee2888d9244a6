// CSV export for the portal's tables (RFC 4180 quoting). Text cells that a spreadsheet would run as a formula
// (starting with = + - @ or a tab/CR) are prefixed with a quote, so an exported ledger cannot carry a formula
// injected through, say, a key name. Numbers are written as numbers (a negative amount is not text).
export type CsvColumn<T> = { header: string; value: (row: T) => string | number | boolean | null | undefined };

function cell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Micro-USD → a plain number of dollars for a numeric cell (no "-0", at most six decimals). */
export function signedUsd(micros: number): number {
  const value = Number((micros / 1_000_000).toFixed(6));
  return value === 0 ? 0 : value;
}

export function toCsv<T>(rows: readonly T[], columns: readonly CsvColumn<T>[]): string {
  const lines = [columns.map((column) => cell(column.header)).join(",")];
  for (const row of rows) lines.push(columns.map((column) => cell(column.value(row))).join(","));
  return `${lines.join("\r\n")}\r\n`;
}

/** Saves `text` as a file through the browser's download. */
export function download(filename: string, text: string, type = "text/csv;charset=utf-8"): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
