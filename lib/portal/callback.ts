// Where to go after signing in: only a page of this site, checked on the URL as the browser will resolve it.
// The value is resolved against the site's origin with the WHATWG URL parser, the one browsers use: it drops tabs and
// newlines, reads "\" as "/", and removes dot segments ("/./", "/x/../", and their encoded forms "%2e"). Only then is
// the origin compared, and the answer is the normalized path, search and hash. That answer is read once more by the
// browser (a Location header, location.assign), so it must resolve to the same URL again: "/.//evil.example" keeps
// the origin as written, but its normalized path "//evil.example" is a host to the browser, and falls back.
// Control characters and backslashes are refused before parsing, whatever the parser would make of them. The check
// itself is lib/auth/redirect.ts, shared with next-auth's redirect callback.
import { resolveOnOrigin } from "@/lib/auth/redirect";

const FALLBACK = "/dashboard";
const PLACEHOLDER_ORIGIN = "http://portal.invalid";

/**
 * The page to open after signing in: `value` (the sign-in page's callbackUrl) as a path of this site, or the
 * dashboard. `origin` is the site's public address (APP_URL); the sign-in page itself and the APIs are not pages to
 * land on.
 */
export function safeCallback(value: string | null | undefined, origin = PLACEHOLDER_ORIGIN): string {
  if (typeof value !== "string" || !value.startsWith("/")) return FALLBACK;
  const url = resolveOnOrigin(value, origin);
  if (!url) return FALLBACK;
  if (url.pathname.startsWith("/sign-in") || url.pathname.startsWith("/api/")) return FALLBACK;
  return `${url.pathname}${url.search}${url.hash}`;
}
