// Input that a database cannot take, on the account API (/api/user/*) and the operator API (/api/admin/*), on SQLite
// and PostgreSQL: a NUL or an unpaired surrogate in a body's string or key, or a NUL in a query parameter, is a 400
// naming the field (lib/platform/http/json.ts readBody and parseQuery); a NUL in an id of the path names no object: 404
// (lib/server/routes.ts); a date range past the year 9999 and page offsets such as 1e20 are 400s naming the parameter.
// Each answers in the APIs' error shape, and none of them changes any money. Before, PostgreSQL answered most of them
// with a 500 (it refuses NUL even in a lookup), and SQLite with a 500 for an unpaired surrogate in a key name.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signedIn, type Browser } from "../helpers/user-api";

after(stopAllGateways);

type Context = { payer: Awaited<ReturnType<typeof createUserWithKey>>; channelId: string };
type Case = {
  name: string;
  method: string;
  path: string | ((context: Context) => string);
  auth: "session" | "master";
  body?: unknown;
  status: 400 | 404;
  /** The field the 400 names. */
  param?: string;
};

const CASES: Case[] = [
  // ------------------------------------------------------------------------------------------- the account API
  {
    name: "usage: to 9999-12-31 (through the end of that day: past the last date)",
    method: "GET",
    path: "/api/user/usage?from=1970-01-01&to=9999-12-31",
    auth: "session",
    status: 400,
    param: "to",
  },
  { name: "usage: from 0000-01-01", method: "GET", path: "/api/user/usage?from=0000-01-01", auth: "session", status: 400, param: "from" },
  { name: "usage: a NUL model filter", method: "GET", path: "/api/user/usage?model=%00", auth: "session", status: 400, param: "model" },
  { name: "usage: a NUL key id filter", method: "GET", path: "/api/user/usage?keyId=%00", auth: "session", status: 400, param: "keyId" },
  { name: "usage: offset 1e20", method: "GET", path: "/api/user/usage?offset=1e20", auth: "session", status: 400, param: "offset" },
  {
    name: "keys: a NUL in the name",
    method: "POST",
    path: "/api/user/keys",
    auth: "session",
    body: { name: "a\u0000b", quota: 1 },
    status: 400,
    param: "name",
  },
  {
    name: "keys: an unpaired surrogate in the name",
    method: "POST",
    path: "/api/user/keys",
    auth: "session",
    body: { name: "a\uD800b", quota: 1 },
    status: 400,
    param: "name",
  },
  {
    name: "keys PATCH: a NUL in a model",
    method: "PATCH",
    path: ({ payer }) => `/api/user/keys/${payer.keyId}`,
    auth: "session",
    body: { models: ["std-5.5", "a\u0000"] },
    status: 400,
    param: "models[1]",
  },
  { name: "keys DELETE: a NUL id in the path", method: "DELETE", path: "/api/user/keys/%00", auth: "session", status: 404 },
  {
    name: "keys PATCH: a NUL id in the path",
    method: "PATCH",
    path: "/api/user/keys/%00",
    auth: "session",
    body: { name: "x" },
    status: 404,
  },
  { name: "keys DELETE: a NUL ?id=", method: "DELETE", path: "/api/user/keys?id=%00", auth: "session", status: 400, param: "id" },
  {
    name: "keys DELETE: a NUL id in the body",
    method: "DELETE",
    path: "/api/user/keys",
    auth: "session",
    body: { id: "\u0000" },
    status: 400,
    param: "id",
  },
  { name: "sessions DELETE: a NUL id in the path", method: "DELETE", path: "/api/user/sessions/%00", auth: "session", status: 404 },
  {
    name: "playground renew: a NUL group",
    method: "POST",
    path: "/api/user/playground/renew",
    auth: "session",
    body: { group: "d\u0000" },
    status: 400,
    param: "group",
  },
  // ------------------------------------------------------------------------------------------ the operator API
  { name: "usage: offset 1e20", method: "GET", path: "/api/admin/usage?offset=1e20", auth: "master", status: 400, param: "offset" },
  { name: "usage: offset -1", method: "GET", path: "/api/admin/usage?offset=-1", auth: "master", status: 400, param: "offset" },
  { name: "usage: limit -5", method: "GET", path: "/api/admin/usage?limit=-5", auth: "master", status: 400, param: "limit" },
  { name: "usage: limit 2.5", method: "GET", path: "/api/admin/usage?limit=2.5", auth: "master", status: 400, param: "limit" },
  { name: "usage: a NUL user id", method: "GET", path: "/api/admin/usage?userId=%00", auth: "master", status: 400, param: "userId" },
  {
    name: "usage: a NUL request id",
    method: "GET",
    path: "/api/admin/usage?requestId=a%00",
    auth: "master",
    status: 400,
    param: "requestId",
  },
  { name: "users: a NUL search", method: "GET", path: "/api/admin/users?q=%00", auth: "master", status: 400, param: "q" },
  { name: "users: limit lots", method: "GET", path: "/api/admin/users?limit=lots", auth: "master", status: 400, param: "limit" },
  { name: "keys: a NUL user id", method: "GET", path: "/api/admin/keys?userId=%00", auth: "master", status: 400, param: "userId" },
  {
    name: "redeem codes: a NUL batch",
    method: "GET",
    path: "/api/admin/redeem-codes?batch=%00",
    auth: "master",
    status: 400,
    param: "batch",
  },
  { name: "outbox: a NUL address", method: "GET", path: "/api/admin/outbox?to=%00", auth: "master", status: 400, param: "to" },
  { name: "audit: a NUL target", method: "GET", path: "/api/admin/audit?targetId=%00", auth: "master", status: 400, param: "targetId" },
  { name: "audit: limit 1e400", method: "GET", path: "/api/admin/audit?limit=1e400", auth: "master", status: 400, param: "limit" },
  { name: "overview: hours lots", method: "GET", path: "/api/admin/overview?hours=lots", auth: "master", status: 400, param: "hours" },
  {
    name: "users: a NUL in the email",
    method: "POST",
    path: "/api/admin/users",
    auth: "master",
    body: { email: "a\u0000@example.com", password: "long-enough-password-1" },
    status: 400,
    param: "email",
  },
  { name: "users PATCH: a NUL id", method: "PATCH", path: "/api/admin/users/%00", auth: "master", body: { status: "active" }, status: 404 },
  {
    name: "users PATCH: a NUL in the adjustment's note (no money moves)",
    method: "PATCH",
    path: ({ payer }) => `/api/admin/users/${payer.userId}`,
    auth: "master",
    body: { balanceDelta: 5, note: "a\u0000" },
    status: 400,
    param: "note",
  },
  { name: "users: reset-2fa of a NUL id", method: "POST", path: "/api/admin/users/%00/reset-2fa", auth: "master", status: 404 },
  { name: "users: send-reset to a NUL id", method: "POST", path: "/api/admin/users/%00/send-reset", auth: "master", status: 404 },
  {
    name: "keys: a NUL user id",
    method: "POST",
    path: "/api/admin/keys",
    auth: "master",
    body: { userId: "a\u0000" },
    status: 400,
    param: "userId",
  },
  {
    name: "keys: a NUL in the name",
    method: "POST",
    path: "/api/admin/keys",
    auth: "master",
    body: ({ payer }: Context) => ({ userId: payer.userId, name: "a\u0000" }),
    status: 400,
    param: "name",
  },
  { name: "keys PATCH: a NUL id", method: "PATCH", path: "/api/admin/keys/%00", auth: "master", body: { status: "active" }, status: 404 },
  { name: "keys DELETE: a NUL id", method: "DELETE", path: "/api/admin/keys/%00", auth: "master", status: 404 },
  {
    name: "groups: a NUL in a model",
    method: "POST",
    path: "/api/admin/groups",
    auth: "master",
    body: { name: "g", models: ["a\u0000"] },
    status: 400,
    param: "models[0]",
  },
  {
    name: "channels: a NUL in the name",
    method: "POST",
    path: "/api/admin/channels",
    auth: "master",
    body: { name: "c\u0000", type: "simulator", models: ["std-5.5"] },
    status: 400,
    param: "name",
  },
  {
    name: "channels: a NUL in a setting",
    method: "POST",
    path: "/api/admin/channels",
    auth: "master",
    body: { name: "c", type: "simulator", models: ["std-5.5"], settings: { note: "\u0000" } },
    status: 400,
    param: "settings.note",
  },
  {
    name: "channels: an unpaired surrogate in a mapping's key",
    method: "POST",
    path: "/api/admin/channels",
    auth: "master",
    body: { name: "c", type: "simulator", models: ["std-5.5"], modelMapping: { "std-5.5\uDC00": "x" } },
    status: 400,
    param: "modelMapping",
  },
  {
    name: "channels PATCH: a NUL in the name",
    method: "PATCH",
    path: ({ channelId }) => `/api/admin/channels/${channelId}`,
    auth: "master",
    body: { name: "c\u0000" },
    status: 400,
    param: "name",
  },
  { name: "channels PATCH: a NUL id", method: "PATCH", path: "/api/admin/channels/%00", auth: "master", body: { weight: 1 }, status: 404 },
  { name: "channels DELETE: a NUL id", method: "DELETE", path: "/api/admin/channels/%00", auth: "master", status: 404 },
  { name: "channels: test a NUL id", method: "POST", path: "/api/admin/channels/%00/test", auth: "master", status: 404 },
  { name: "channels: fetch-models of a NUL id", method: "POST", path: "/api/admin/channels/%00/fetch-models", auth: "master", status: 404 },
  {
    name: "prices: a NUL in the model",
    method: "POST",
    path: "/api/admin/prices",
    auth: "master",
    body: { model: "m\u0000", textInput: 1 },
    status: 400,
    param: "model",
  },
  {
    name: "catalog: a NUL in an alias",
    method: "PUT",
    path: "/api/admin/catalog/std-5.5",
    auth: "master",
    body: { override: { aliases: ["a\u0000"] } },
    status: 400,
    param: "override.aliases[0]",
  },
  {
    name: "redeem codes: a NUL batch",
    method: "POST",
    path: "/api/admin/redeem-codes",
    auth: "master",
    body: { quota: 1, count: 1, batch: "b\u0000" },
    status: 400,
    param: "batch",
  },
  {
    name: "redeem codes void: a NUL batch",
    method: "POST",
    path: "/api/admin/redeem-codes/void",
    auth: "master",
    body: { batch: "b\u0000" },
    status: 400,
    param: "batch",
  },
  {
    name: "settings: a NUL user group",
    method: "POST",
    path: "/api/admin/settings",
    auth: "master",
    body: { userGroups: ["d\u0000"] },
    status: 400,
    param: "userGroups[0]",
  },
  {
    name: "moderation: a NUL term",
    method: "POST",
    path: "/api/admin/moderation",
    auth: "master",
    body: { auto: ["d\u0000"] },
    status: 400,
    param: "auto[0]",
  },
];

async function send(gateway: Gateway, browser: Browser, kase: Case, context: Context) {
  const path = typeof kase.path === "function" ? kase.path(context) : kase.path;
  const body = typeof kase.body === "function" ? (kase.body as (context: Context) => unknown)(context) : kase.body;
  const headers: Record<string, string> =
    kase.auth === "master" ? { authorization: `Bearer ${gateway.masterKey}` } : { cookie: browser.cookie, origin: gateway.url };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${gateway.url}${path}`, {
    method: kase.method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { path, status: response.status, text, body: JSON.parse(text) };
}

for (const database of ["sqlite", "postgres"] as const) {
  describe(`text no database holds, and numbers out of range, on ${database}: a 400 naming the field or a 404`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;
    let gateway: Gateway;
    let browser: Browser;
    let context: Context;
    let before: unknown;

    const money = async () => {
      const user = (await gateway.admin("GET", "/api/admin/users?limit=1000")).data.find(
        (row: { id: string }) => row.id === context.payer.userId,
      );
      const keys = (await gateway.admin("GET", `/api/admin/keys?userId=${context.payer.userId}`)).data;
      const rows = (await gateway.admin("GET", `/api/admin/usage?userId=${context.payer.userId}&limit=1000`)).data;
      return {
        balance: user.balance,
        keys: keys.length,
        quota: keys.map((key: { quotaRemaining: number }) => key.quotaRemaining),
        rows: rows.length,
      };
    };

    test("(a gateway with a user, a key and a channel)", { skip }, async () => {
      gateway = await startGateway({ database, portal: true });
      const payer = await createUserWithKey(gateway, { balance: 10_000_000, quota: 10_000_000 });
      const channelId = (
        await gateway.admin("POST", "/api/admin/channels", { name: "spare", type: "simulator", models: ["std-5.5"], status: "disabled" })
      ).id;
      context = { payer, channelId };
      browser = await signedIn(gateway.url, payer.email, payer.password);
      before = await money();
    });

    for (const kase of CASES) {
      test(`${kase.auth === "master" ? "operator" : "account"}: ${kase.name} -> ${kase.status}`, { skip }, async () => {
        const answer = await send(gateway, browser, kase, context);
        assert.equal(answer.status, kase.status, `${kase.method} ${answer.path}: ${answer.text.slice(0, 300)}`);
        // The account and operator APIs' error shape: {error: {message, type, code, param}}.
        assert.deepEqual(Object.keys(answer.body), ["error"]);
        assert.deepEqual(Object.keys(answer.body.error).sort(), ["code", "message", "param", "type"]);
        assert.equal(answer.body.error.code, kase.status === 404 ? "not_found" : "invalid_request");
        if (kase.param) {
          assert.equal(answer.body.error.param, kase.param, answer.text);
          assert.ok(
            answer.body.error.message.includes(`'${kase.param}'`),
            `the message names '${kase.param}': ${answer.body.error.message}`,
          );
        }
      });
    }

    test("none of it changed any money, key or ledger row", { skip }, async () => {
      assert.deepEqual(await money(), before);
    });
  });
}
