// Text that a database can hold. PostgreSQL refuses NUL (U+0000) in text and in jsonb (SQLSTATE 22021 and 22P05),
// and refuses a JSON string escape of an unpaired UTF-16 surrogate; SQLite stores both but gives back something else
// (a lone surrogate comes back as U+FFFD). Any string from a client or an upstream may carry them: the account and
// operator APIs refuse them at the boundary (lib/platform/http/json.ts), the ledger writer replaces them
// (lib/money/ledger-row.ts, docs/billing.md "The ledger writer").

/** What a NUL or an unpaired surrogate becomes when text is cleaned. */
export const REPLACEMENT = "\uFFFD";

/** True when `value` holds neither NUL nor an unpaired surrogate. */
export function isStorableText(value: string): boolean {
  return !value.includes("\u0000") && value.isWellFormed();
}

/** `value` with each NUL and unpaired surrogate replaced by U+FFFD; the same string when there is none. */
export function storableText(value: string): string {
  if (isStorableText(value)) return value;
  return value.toWellFormed().replaceAll("\u0000", REPLACEMENT);
}

/**
 * At most `max` UTF-16 code units of `value`, cleaned; a cut never leaves half of a surrogate pair behind (the half
 * would be an unpaired surrogate, replaced).
 */
export function cappedText(value: string, max: number): string {
  let cut = value.length > max ? value.slice(0, max) : value;
  // A pair split by the cut loses its high half rather than leaving a replacement character.
  if (cut.length === max && cut.length < value.length && /[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return storableText(cut);
}

/**
 * The path of the first string in a parsed JSON value (a value or an object key) that is not storable text, e.g.
 * `models[2]` or `settings.headers`; null when every string is. `prefix` names the value itself. Walks without
 * recursion (a body may nest up to MAX_JSON_DEPTH levels).
 */
export function firstUnstorableText(value: unknown, prefix = ""): string | null {
  const stack: { node: unknown; path: string }[] = [{ node: value, path: prefix }];
  while (stack.length) {
    const { node, path } = stack.pop()!;
    if (typeof node === "string") {
      if (!isStorableText(node)) return path;
    } else if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) stack.push({ node: node[index], path: `${path}[${index}]` });
    } else if (typeof node === "object" && node !== null) {
      const entries = Object.entries(node);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index]!;
        // A bad key is named by its parent: the key itself cannot be printed as it is.
        if (!isStorableText(key)) return path || "(the body)";
        stack.push({ node: child, path: path ? `${path}.${key}` : key });
      }
    }
  }
  return null;
}

/** Bounds for storableJson: what a stored JSON detail may hold. */
export type JsonBounds = { maxString: number; maxDepth: number; maxEntries: number };

/**
 * A copy of a JSON-like value that any database takes: every string and object key cleaned and capped
 * (cappedText), at most `maxEntries` items per array or object, nesting below `maxDepth` replaced by a note,
 * non-finite numbers as null (as JSON.stringify writes them), BigInt as a number, Dates as ISO text, and
 * anything JSON cannot hold (functions, symbols, undefined) dropped.
 */
export function storableJson(value: unknown, bounds: JsonBounds, depth = 0): unknown {
  if (value === null || typeof value === "boolean") return value;
  if (typeof value === "string") return cappedText(value, bounds.maxString);
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "bigint") return Number(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value !== "object") return undefined;
  if (depth >= bounds.maxDepth) return "(nested too deep; left out)";
  if (Array.isArray(value)) {
    return value.slice(0, bounds.maxEntries).map((item) => storableJson(item, bounds, depth + 1) ?? null);
  }
  const copy: Record<string, unknown> = {};
  let count = 0;
  for (const [key, item] of Object.entries(value)) {
    if (count++ >= bounds.maxEntries) break;
    const cleaned = storableJson(item, bounds, depth + 1);
    if (cleaned !== undefined) copy[cappedText(key, bounds.maxString)] = cleaned;
  }
  return copy;
}
