// Hardening item 5 (SECURITY.md): the page after sign-in is a page of this site, whatever callbackUrl says.
import { test } from "node:test";
import assert from "node:assert/strict";
import { safeCallback } from "@/lib/portal/callback";

test("hardening item 5: open redirect: hostile callbackUrls fall back to the dashboard, pages of the site pass", () => {
  const origin = "https://gateway.example";
  const hostile = [
    "//evil.example/x",
    "/\\evil.example/x",
    "/\t/evil.example/x",
    "/\n/evil.example",
    "/\r//evil.example",
    "https://evil.example/",
    "javascript:alert(1)",
    "/\u0000/evil.example",
    "\\\\evil.example",
    " /dashboard",
    "/sign-in?callbackUrl=//evil",
    "/api/user/self",
    "",
    null,
    undefined,
  ];
  for (const value of hostile) assert.equal(safeCallback(value as string, origin), "/dashboard", JSON.stringify(value));
  assert.equal(safeCallback(decodeURIComponent("/%09/evil.example/x"), origin), "/dashboard", "a decoded %09");
  assert.equal(safeCallback("/%09/evil.example/x", origin), "/%09/evil.example/x", "kept encoded it is a path of this site");
  assert.equal(safeCallback("/keys?tab=new#top", origin), "/keys?tab=new#top");
  assert.equal(safeCallback("/usage", origin), "/usage");
});
