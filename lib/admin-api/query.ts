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
