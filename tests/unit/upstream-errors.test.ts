// How an upstream's refusal is read (lib/providers/http.ts classifyStatus): each vendor's error shape gives the
// message, the code clients act on, and whether the channel's own credential was refused (docs/api.md, "Channel
// types").
import { test } from "node:test";
import assert from "node:assert/strict";
import { classifyStatus } from "@/lib/providers/http";

const google = (code: number, status: string, message: string, reason?: string) =>
  JSON.stringify({
    error: {
      code,
      message,
      status,
      ...(reason ? { details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "googleapis.com" }] } : {}),
    },
  });

test("Google: the status name is the code; a 400 API_KEY_INVALID switches the channel off like a 401", () => {
  const refused = classifyStatus(400, google(400, "INVALID_ARGUMENT", "Invalid value at 'contents'"));
  assert.equal(refused.retryable, false);
  assert.equal(refused.status, 400);
  assert.equal(refused.vendor?.code, "INVALID_ARGUMENT");
  assert.equal(refused.disable, undefined);

  const badKey = classifyStatus(400, google(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", "API_KEY_INVALID"));
  assert.equal(badKey.retryable, true);
  assert.match(badKey.disable ?? "", /API key not valid/);
  assert.equal(badKey.message, "The upstream refused this channel's credentials");

  const quota = classifyStatus(429, google(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted"));
  assert.equal(quota.retryable, true);
  assert.equal(quota.status, 429);
});

test("Azure: the named code (content_filter) stays, not its numeric status", () => {
  const filtered = classifyStatus(
    400,
    JSON.stringify({ error: { message: "The response was filtered", type: null, param: "prompt", code: "content_filter", status: 400 } }),
  );
  assert.equal(filtered.vendor?.code, "content_filter");
  assert.equal(filtered.message, "The response was filtered");
});

test("Bedrock: `{message}` is the message; 403 switches the channel off; ThrottlingException's 429 fails over", () => {
  const invalid = classifyStatus(400, JSON.stringify({ message: "The provided request is not valid." }));
  assert.equal(invalid.message, "The provided request is not valid.");
  assert.equal(invalid.retryable, false);
  assert.ok(classifyStatus(403, JSON.stringify({ message: "The security token included in the request is invalid." })).disable);
  const throttled = classifyStatus(429, JSON.stringify({ message: "Too many requests, please wait before trying again." }), "3");
  assert.equal(throttled.retryable, true);
  assert.equal(throttled.retryAfter, "3");
});

test("an OAuth token endpoint's refusal: its description is the message, its error the code", () => {
  const refused = classifyStatus(400, JSON.stringify({ error: "invalid_grant", error_description: "Invalid JWT Signature." }));
  assert.equal(refused.message, "Invalid JWT Signature.");
  assert.equal(refused.vendor?.code, "invalid_grant");
});
