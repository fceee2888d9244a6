// Where to go after signing in: only a page of this site. The value is parsed as a URL against the site's own origin
// and must keep that origin, so "//evil.example", "/\\evil.example" and "/<tab>/evil.example" (browsers drop tabs and
// newlines, which turns it into "//evil.example") all fall back to the dashboard; control characters and backslashes
// are refused outright.
const FALLBACK = "/dashboard";

export function safeCallback(value: string | null | undefined, origin = "http://portal.invalid"): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (!value?.startsWith("/") || /[\u0000-\u001f\u007f\\]/.test(value)) return FALLBACK;
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    return FALLBACK;
  }
  if (url.origin !== new URL(origin).origin) return FALLBACK;
  if (url.pathname.startsWith("/sign-in") || url.pathname.startsWith("/api/")) return FALLBACK;
  return `${url.pathname}${url.search}${url.hash}`;
}
