// The one check every cookie-authenticated state change passes (/api/user, /api/admin with an admin's session): a
// hostile page on another origin, even a same-site one (another port, a sibling subdomain), cannot make the browser
// send a write with the user's cookie. SameSite=Lax stops only cross-site requests, and a `text/plain` no-cors POST
// needs no preflight, so: the Origin (or Sec-Fetch-Site) must say the request comes from the portal itself, and the
// body must be declared as JSON (a no-cors form or text POST cannot declare it). Requests with neither header (not
// from a browser) pass: they carry no ambient cookie by accident.
import { GatewayError } from "@/lib/platform/errors";
import { env } from "@/lib/platform/env";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * `allowMultipart`: a multipart body passes too when the request carries the `x-gateway-portal` header (the
 * playground's image edits). A page on another origin cannot add that header without a CORS preflight, which the
 * gateway never grants for /api, so the header does for a multipart upload what the JSON content type does otherwise.
 */
export function checkCookieWrite(request: Request, options: { allowMultipart?: boolean } = {}): void {
  if (SAFE_METHODS.has(request.method)) return;
  const refused = () => new GatewayError("forbidden", "Cross-site request refused: call this endpoint from the portal's own pages");
  const origin = request.headers.get("origin");
  const fetchSite = request.headers.get("sec-fetch-site");
  if (origin !== null) {
    let sent: URL;
    try {
      sent = new URL(origin);
    } catch {
      throw refused();
    }
    if (env().APP_URL) {
      // The configured public address, scheme and port included: a page at http://app.example is another origin
      // than https://app.example (anyone on the network path can write one), not the portal.
      if (sent.origin !== new URL(env().appUrl).origin) throw refused();
    } else if ((sent.protocol !== "http:" && sent.protocol !== "https:") || sent.host !== (request.headers.get("host") ?? "")) {
      // Without APP_URL the server cannot know the scheme the portal is served with (TLS may end before it): the
      // host the request was sent to, over http or https.
      throw refused();
    }
  } else if (fetchSite !== null && fetchSite !== "same-origin" && fetchSite !== "none") {
    throw refused();
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  const hasBody = declared > 0 || request.headers.has("transfer-encoding");
  const contentType = request.headers.get("content-type") ?? "";
  if (options.allowMultipart && /^multipart\/form-data(\s*;|$)/i.test(contentType) && request.headers.get("x-gateway-portal") === "1")
    return;
  if (hasBody && !/^application\/json(\s*;|$)/i.test(contentType)) {
    throw new GatewayError("unsupported_media_type", "Send the body as JSON with 'Content-Type: application/json'");
  }
}
