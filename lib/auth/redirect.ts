// The URL a redirect leads to, checked as the browser will resolve it (the WHATWG URL parser: tabs and newlines
// dropped, "\\" read as "/", dot segments removed, "%2e" included), for the sign-in page (lib/portal/callback.ts) and
// next-auth's redirect callback (lib/auth/options.ts). See lib/portal/callback.ts for why the answer is resolved twice.

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const REFUSED_CHARACTERS = /[\u0000-\u001f\u007f\\]/;

/** The same-origin URL `value` leads to, resolved as a browser resolves it; null when it leaves `origin`. */
export function resolveOnOrigin(value: string, origin: string): URL | null {
  if (REFUSED_CHARACTERS.test(value)) return null;
  try {
    const base = new URL(origin);
    const url = new URL(value, base);
    if (url.origin !== base.origin) return null;
    // What the caller hands on is the path from here: resolved again, it must be this same URL ("//" alone does not
    // even parse: a host that is empty).
    const again = new URL(`${url.pathname}${url.search}${url.hash}`, base);
    return again.href === url.href ? url : null;
  } catch {
    return null;
  }
}

/**
 * next-auth's redirect callback (lib/auth/options.ts): `url` (a path, or an absolute URL) as an absolute URL of
 * `baseUrl`'s origin, normalized; `baseUrl` itself when it leads anywhere else or does not parse.
 */
export function sameOriginRedirect(url: string, baseUrl: string): string {
  return resolveOnOrigin(url, baseUrl)?.href ?? baseUrl;
}
