// next-auth's own answers under /api/auth: the HTML pages it writes itself (/api/auth/signout, /error,
// /verify-request, /signin when reached), its redirects and its JSON. They are not the portal's pages, so neither
// proxy.ts's policy nor next.config.js's headers reach them; without these, a page on any site could frame the
// sign-out button (clickjacking). next-auth's pages have no scripts and one inline <style>; their forms post to
// next-auth's own URL, built from APP_URL (server.ts sets NEXTAUTH_URL from it), which then redirects on this site.
export function authPageHeaders(appUrl: string): Record<string, string> {
  const origin = new URL(appUrl).origin;
  return {
    "content-security-policy": [
      "default-src 'none'",
      "style-src 'unsafe-inline'",
      "img-src 'self'",
      `form-action 'self' ${origin}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join("; "),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "strict-origin-when-cross-origin",
  };
}

/** `response` with the headers above added (a copy: a redirect's headers cannot be changed in place). */
export function withAuthPageHeaders(response: Response, appUrl: string): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(authPageHeaders(appUrl))) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
