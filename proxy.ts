// Next.js proxy (runs before every page): a fresh nonce per page view and a strict Content-Security-Policy that
// allows only scripts carrying it (SECURITY.md, "Web hardening": framing). Next.js reads the nonce from the request's CSP
// header and puts it on its own scripts; the root layout gives it to Mantine's colour-scheme script. Styles stay
// 'unsafe-inline': Mantine writes style attributes and <style> tags at run time. /v1, /api and static files are not
// pages and are left out (they answer with their own headers).
import { NextResponse, type NextRequest } from "next/server";

export function contentSecurityPolicy(nonce: string, development = process.env.NODE_ENV === "development"): string {
  return [
    "default-src 'self'",
    // 'strict-dynamic': scripts that a nonce'd script loads (Next.js's chunks) are trusted; nothing else is.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    // data: and blob: for generated images in the playground and the 2FA QR code.
    "img-src 'self' data: blob:",
    // blob: for the playground's speech, played from the answer's bytes.
    "media-src 'self' blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join("; ");
}

export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const policy = contentSecurityPolicy(nonce);
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  matcher: [
    {
      source: "/((?!v1/|v1$|v1beta/|api/|_next/static|_next/image|favicon\\.ico|robots\\.txt|openapi\\.json|healthz|readyz|metrics).*)",
      missing: [{ type: "header", key: "next-router-prefetch" }],
    },
  ],
};
