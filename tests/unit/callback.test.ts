// No open redirect (SECURITY.md): the page after sign-in is a page of this site, whatever callbackUrl says. The check
// runs on the URL as the browser will resolve it (lib/auth/redirect.ts, lib/portal/callback.ts): dot segments and
// their encodings are removed before the origin is compared, and the answer, read again, stays on the site.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { safeCallback } from "@/lib/portal/callback";
import { sameOriginRedirect } from "@/lib/auth/redirect";

const ORIGIN = "https://gateway.example";
/** Another base: an answer that lands on it too carries no host of its own, whatever page the browser is on. */
const ELSEWHERE = "http://elsewhere.invalid";
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);

test("open redirect: hostile callbackUrls fall back to the dashboard, pages of the site pass", () => {
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
    // The path is normalized before the browser reads it again: each of these becomes "//evil.example/phish".
    "/.//evil.example/phish",
    "/%2e//evil.example/phish",
    "/%2E//evil.example/phish",
    "/x/..//evil.example/phish",
    "/x/%2e%2e//evil.example/phish",
    "/x/.%2E//evil.example/phish",
    "/././/evil.example/phish",
    "/a/b/../..//evil.example/phish",
    "/.//",
  ];
  for (const value of hostile) assert.equal(safeCallback(value as string, ORIGIN), "/dashboard", JSON.stringify(value));
  assert.equal(safeCallback(decodeURIComponent("/%09/evil.example/x"), ORIGIN), "/dashboard", "a decoded %09");
  assert.equal(
    safeCallback(decodeURIComponent("%2F.%2F%2Fevil.example%2Fphish"), ORIGIN),
    "/dashboard",
    "the query value as Next hands it on",
  );
  assert.equal(safeCallback("/%09/evil.example/x", ORIGIN), "/%09/evil.example/x", "kept encoded it is a path of this site");
  assert.equal(safeCallback("/keys?tab=new#top", ORIGIN), "/keys?tab=new#top");
  assert.equal(safeCallback("/usage", ORIGIN), "/usage");
  assert.equal(safeCallback("/x/../keys", ORIGIN), "/keys", "normalized as the browser would");
  assert.equal(safeCallback("/%2e/keys", ORIGIN), "/keys");
});

/** Pieces of the tricks: separators, dot segments and their encodings, characters browsers drop or rewrite. */
const piece = fc.constantFrom(
  "/",
  "//",
  "\\",
  ".",
  "..",
  "./",
  "../",
  "%2e",
  "%2E",
  "%2e%2e",
  ".%2e",
  "%2e.",
  "%2f",
  "%2F",
  "%5c",
  "%5C",
  "%252e",
  "%09",
  "%0a",
  "\t",
  "\n",
  "\r",
  " ",
  "\u0000",
  "x",
  "x/",
  "@",
  "%40",
  ":",
  ";",
  "?",
  "#",
  "https:",
  "http:",
  "evil.example",
  "//evil.example",
);
const trick = fc.array(piece, { maxLength: 10 }).map((pieces) => `/${pieces.join("")}evil.example/phish`);
/** The value as written, once decoded (what Next.js hands the page from the query string), or twice. */
const encodings = trick.chain((value) =>
  fc.constantFrom(
    ...[value, value, encodeURIComponent(value)].flatMap((written) => {
      const decoded: string[] = [written];
      try {
        decoded.push(decodeURIComponent(written));
        decoded.push(decodeURIComponent(decodeURIComponent(written)));
      } catch {
        // Not decodable: the written form is what arrives.
      }
      return decoded;
    }),
  ),
);

/** Where a browser goes with `target` as a Location header or location.assign, from a page at `base`. */
const landsOn = (target: string, base: string) => new URL(target, base).origin;

test("property: whatever callbackUrl holds, the page after sign-in resolves on the site from any base, and checking it again keeps it", () => {
  fc.assert(
    fc.property(fc.oneof(encodings, fc.string(), fc.webUrl(), fc.webPath()), (value) => {
      const target = safeCallback(value, ORIGIN);
      assert.ok(target.startsWith("/"), target);
      assert.equal(landsOn(target, ORIGIN), ORIGIN, `${JSON.stringify(value)} -> ${target}`);
      assert.equal(landsOn(target, ELSEWHERE), ELSEWHERE, `${JSON.stringify(value)} -> ${target} names a host`);
      assert.equal(safeCallback(target, ORIGIN), target, "stable");
    }),
    { numRuns: RUNS },
  );
});

test("property: plain paths of the site, with a query and a fragment, are kept as they are", () => {
  const segment = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,11}$/);
  const page = fc
    .tuple(
      fc.array(segment, { minLength: 1, maxLength: 5 }),
      fc.option(fc.stringMatching(/^[a-z0-9=&]{0,20}$/)),
      fc.option(fc.stringMatching(/^[a-z0-9-]{0,12}$/)),
    )
    .filter(([segments]) => segments[0] !== "api" && !segments[0]!.startsWith("sign-in"))
    .map(([segments, query, hash]) => `/${segments.join("/")}${query ? `?${query}` : ""}${hash ? `#${hash}` : ""}`);
  fc.assert(
    fc.property(page, (path) => assert.equal(safeCallback(path, ORIGIN), path)),
    { numRuns: RUNS },
  );
});

test("property: next-auth's redirect callback answers an absolute URL of the site, which stays there when read again", () => {
  fc.assert(
    fc.property(
      fc.oneof(
        encodings,
        encodings.map((value) => `${ORIGIN}${value}`),
        fc.string(),
        fc.webUrl(),
      ),
      (value) => {
        const target = sameOriginRedirect(value, ORIGIN);
        assert.equal(new URL(target).origin, ORIGIN, `${JSON.stringify(value)} -> ${target}`);
        const path = target.slice(ORIGIN.length) || "/";
        assert.equal(landsOn(path, ELSEWHERE), ELSEWHERE, `${JSON.stringify(value)} -> ${target}: its path names a host`);
      },
    ),
    { numRuns: RUNS },
  );
  assert.equal(sameOriginRedirect(`${ORIGIN}/.//evil.example/phish`, ORIGIN), ORIGIN);
  assert.equal(sameOriginRedirect("/keys", ORIGIN), `${ORIGIN}/keys`);
  assert.equal(sameOriginRedirect("https://evil.example/keys", ORIGIN), ORIGIN);
});
