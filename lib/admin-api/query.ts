// Query parameters of the operator API's list endpoints, read with parseQuery (lib/platform/http/json.ts: a value
// holding NUL is refused with a 400 naming it).
import { z } from "zod";

// An empty parameter ("?userId=") counts as absent, as it always has. A filter is any text (an id, a model, an email:
// a value that matches nothing finds nothing); numbers are whole numbers in range, and a page size above the largest
// is served at the largest.
const absentIfEmpty = (value: unknown) => (value === "" ? undefined : value);
export const queryFilter = z.preprocess(absentIfEmpty, z.string().max(320, "is too long").optional());
export function queryLimit(fallback: number, largest: number) {
  return z
    .preprocess(absentIfEmpty, z.coerce.number().int("must be a whole number").min(1).max(Number.MAX_SAFE_INTEGER).default(fallback))
    .transform((value) => Math.min(value, largest));
}
export const queryOffset = z.preprocess(absentIfEmpty, z.coerce.number().int("must be a whole number").min(0).max(1_000_000).default(0));

const HOUR_MS = 60 * 60 * 1000;
const dayStart = z.iso.date().transform((value) => new Date(`${value}T00:00:00.000Z`));
const instant = z.iso.datetime({ offset: true }).transform((value) => new Date(value));
/** Neither database takes a date from year 10000 on, so a range stays within 0001-01-01 .. 9999-12-30. */
const inRange = (value: Date) => value.getTime() < Date.UTC(10000, 0, 1) && value.getTime() >= Date.UTC(1, 0, 1);
/** A range's start, inclusive: an ISO instant or a plain date (its midnight, UTC). */
export const queryFrom = z.preprocess(
  absentIfEmpty,
  z
    .union([instant, dayStart], { error: "must be a date (2026-01-31) or an ISO date-time" })
    .refine(inRange, "must be a date from 0001-01-01 to 9999-12-30")
    .optional(),
);
/** A range's end, exclusive: an ISO instant, or a plain date counting through the end of its day (UTC). */
export const queryTo = z.preprocess(
  absentIfEmpty,
  z
    .union([instant, dayStart.transform((value) => new Date(value.getTime() + 24 * HOUR_MS))], {
      error: "must be a date (2026-01-31) or an ISO date-time",
    })
    .refine(inRange, "must be a date from 0001-01-01 to 9999-12-30 (a plain date counts through the end of its day)")
    .optional(),
);
