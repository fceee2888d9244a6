// The body limit for next-auth's routes (/api/auth/*). next-auth reads and parses a whole body before looking at
// it, so the limit is enforced by server.ts on the raw request, before Next.js sees it: a declared length over the
// limit is refused at once, and a body without a declared length (chunked) is refused too, because node:http then
// holds the client to no length at all. Browsers and next-auth's client send Content-Length for sign-in forms. With
// a declared length, node:http itself refuses a body longer than declared.
import type { IncomingHttpHeaders } from "node:http";
import { ACCOUNT_BODY_LIMIT_BYTES, limitText } from "./json";

export const SIGN_IN_BODY_LIMIT_BYTES = ACCOUNT_BODY_LIMIT_BYTES;

export type BodyRefusal = { status: 411 | 413; code: "length_required" | "body_too_large"; message: string };

export function signInBodyRefusal(method: string, headers: IncomingHttpHeaders): BodyRefusal | null {
  if (method === "GET" || method === "HEAD") return null;
  const declared = headers["content-length"];
  if (declared === undefined) {
    if (headers["transfer-encoding"] === undefined) return null;
    return {
      status: 411,
      code: "length_required",
      message: `Sign-in requests need a Content-Length header (a body of at most ${limitText(SIGN_IN_BODY_LIMIT_BYTES)})`,
    };
  }
  if (Number(declared) > SIGN_IN_BODY_LIMIT_BYTES) {
    return {
      status: 413,
      code: "body_too_large",
      message: `Request body is larger than the ${limitText(SIGN_IN_BODY_LIMIT_BYTES)} limit for sign-in requests`,
    };
  }
  return null;
}
