// The operator's ledger and audit log over HTTP (docs/api.md, "The operator's ledger" and "The audit log"): a request
// that failed over from a broken channel to a healthy one is found by what the portal shows of its key (the prefix or
// the name), its channel, status and dates; its row opens in full with its timing, tokens and the failover; an export
// pages past 1,000 rows; channel, group, price and settings changes are recorded before → after, never a secret.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { startFaultUpstream, type FaultUpstream } from "../helpers/fault-upstream";

const MODEL = "std-5.5";
const UPSTREAM_SECRET = "sk-upstream-secret-do-not-log-0123456789";

let gateway: Gateway;
let broken: FaultUpstream;
let healthy: FaultUpstream;
let payer: Awaited<ReturnType<typeof createUserWithKey>>;
let prefix: string;
let brokenId: string;
let healthyId: string;

before(async () => {
  gateway = await startGateway({ database: process.env.GATEWAY_TEST_POSTGRES === "1" ? "postgres" : "sqlite" });
  // The simulator serves another model only: the request below goes to the two channels made here.
  const simulator = (await gateway.admin("GET", "/api/admin/channels")).data.find((row: { type: string }) => row.type === "simulator");
  await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { models: ["std-image-2"] });
  broken = await startFaultUpstream("5xx");
  healthy = await startFaultUpstream("ok");
  const channel = (name: string, upstream: FaultUpstream, priority: number) =>
    gateway.admin("POST", "/api/admin/channels", {
      name,
      type: "openai",
      baseUrl: `${upstream.url}/v1`,
      apiKey: UPSTREAM_SECRET,
      models: [MODEL],
      priority,
    });
  brokenId = (await channel("broken-primary", broken, 100)).id;
  healthyId = (await channel("healthy-backup", healthy, 50)).id;
  payer = await createUserWithKey(gateway);
  prefix = (await gateway.admin("GET", `/api/admin/keys?userId=${payer.userId}`)).data[0].prefix;
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${payer.key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hello" }] }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  await response.text();
});

after(async () => {
  await Promise.all([broken?.close(), healthy?.close()]);
  await stopAllGateways();
});

async function usage(query: string) {
  return (await gateway.admin("GET", `/api/admin/usage?${query}`)).data as { id: string; channelName: string | null; status: string }[];
}

async function status(pathname: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gateway.url}${pathname}`, { headers: { authorization: `Bearer ${gateway.masterKey}` } });
  return { status: response.status, body: await response.json() };
}

describe("the operator's ledger", () => {
  test("finds a request by the key prefix the portal shows (with or without its ellipsis) and by the key's name", async () => {
    assert.equal((await usage(`key=${encodeURIComponent(prefix)}`)).length, 1);
    assert.equal((await usage(`key=${encodeURIComponent(`${prefix}…`)}`)).length, 1);
    assert.equal((await usage(`key=${encodeURIComponent(prefix.slice(0, 7))}&kind=request`)).length, 1);
    assert.equal((await usage(`key=${encodeURIComponent("test key")}&userId=${payer.userId}`)).length, 1);
    assert.equal((await usage("key=sk-nothing-like-it")).length, 0);
  });

  test("filters by channel (id or name), status and dates", async () => {
    assert.equal((await usage(`channel=healthy-backup&userId=${payer.userId}`)).length, 1);
    assert.equal((await usage(`channel=${healthyId}&userId=${payer.userId}`)).length, 1);
    assert.equal((await usage(`channel=${brokenId}`)).length, 0);
    assert.equal((await usage(`status=success&kind=request`)).length, 1);
    assert.equal((await usage(`status=error&kind=request`)).length, 0);
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    assert.equal((await usage(`kind=request&from=${today}&to=${today}`)).length, 1, "a plain 'to' date counts through its day");
    assert.equal((await usage(`kind=request&from=${tomorrow}`)).length, 0);
    assert.equal((await usage(`kind=request&to=${today}T00:00:00Z`)).length, 0);
  });

  test("refuses a bad status or a range that ends before it starts with a 400 naming the field", async () => {
    const badStatus = await status("/api/admin/usage?status=weird");
    assert.equal(badStatus.status, 400);
    assert.equal(badStatus.body.error.param, "status");
    const backwards = await status("/api/admin/usage?from=2026-02-02&to=2026-01-01");
    assert.equal(backwards.status, 400);
    assert.equal(backwards.body.error.param, "to");
    const badDate = await status("/api/admin/usage?from=yesterday");
    assert.equal(badDate.status, 400);
    assert.equal(badDate.body.error.param, "from");
    assert.equal((await status("/api/admin/usage?after=no-such-row")).status, 400);
  });

  test("one row in full: timing, tokens by kind, the price in force, the serving channel and the failover with its error", async () => {
    const [row] = await usage(`userId=${payer.userId}&kind=request`);
    const detail = (await gateway.admin("GET", `/api/admin/usage/${row!.id}`)) as any;
    assert.equal(detail.row.channelName, "healthy-backup");
    assert.equal(detail.userEmail, payer.email);
    assert.equal(detail.keyName, "test key");
    assert.equal(detail.failovers.length, 1);
    assert.equal(detail.failovers[0].channel, "broken-primary");
    assert.equal(detail.failovers[0].channelId, brokenId);
    assert.ok(detail.failovers[0].status >= 500, `the broken channel's status (${detail.failovers[0].status})`);
    assert.ok(detail.failovers[0].error.length > 0);
    assert.ok(detail.timing.queueMs >= 0);
    assert.ok(detail.timing.firstByteMs >= 1, "the healthy upstream's answer start is recorded");
    assert.ok(detail.timing.firstByteMs >= detail.timing.queueMs);
    assert.ok(detail.timing.totalMs >= detail.timing.firstByteMs);
    assert.ok(detail.failovers[0].ms <= detail.timing.firstByteMs);
    const counts = Object.fromEntries(detail.counts.map((entry: { kind: string; count: number }) => [entry.kind, entry.count]));
    assert.equal(counts.textInput, 11);
    assert.equal(counts.textOutput, 7);
    assert.equal(detail.pricing.price.model, MODEL);
    assert.equal(detail.pricing.price.version, detail.row.priceVersion);
    assert.equal(detail.pricing.rule, "usage");
    assert.equal(JSON.stringify(detail).includes(UPSTREAM_SECRET), false);
    assert.equal((await status("/api/admin/usage/no-such-row")).status, 404);
  });

  test("pages past 1,000 rows by the last row's id, every matching row once", async () => {
    const user = await createUserWithKey(gateway, { email: "many-adjustments@example.com" });
    const count = 1_010;
    for (let start = 0; start < count; start += 25)
      await Promise.all(
        Array.from({ length: Math.min(25, count - start) }, () =>
          gateway.admin("PATCH", `/api/admin/users/${user.userId}`, { balanceDelta: 1 }),
        ),
      );
    const first = await usage(`userId=${user.userId}&kind=adjust&limit=1000`);
    assert.equal(first.length, 1000);
    const second = await usage(`userId=${user.userId}&kind=adjust&limit=1000&after=${first.at(-1)!.id}`);
    assert.equal(second.length, count - 1000);
    assert.equal(new Set([...first, ...second].map((row) => row.id)).size, count);
  });
});

describe("the audit log", () => {
  test("records a channel's changed fields before → after, the key only as changed, and says it in words", async () => {
    await gateway.admin("PATCH", `/api/admin/channels/${healthyId}`, { weight: 3, apiKey: `${UPSTREAM_SECRET}-2` });
    const rows = (await gateway.admin("GET", `/api/admin/audit?targetId=${healthyId}`)).data;
    const update = rows.find((row: { action: string }) => row.action.startsWith("PATCH"));
    assert.equal(update.summary, 'Channel "healthy-backup" updated');
    assert.equal(update.kind, "channel");
    assert.deepEqual(update.detail.changes.weight, { before: 1, after: 3 });
    assert.deepEqual(update.detail.changes.apiKey, { before: "(not shown)", after: "(not shown)" });
    const created = rows.find((row: { action: string }) => row.action.startsWith("POST"));
    assert.equal(created.summary, 'Channel "healthy-backup" created');
    const everything = JSON.stringify(await gateway.admin("GET", "/api/admin/audit?limit=1000"));
    assert.equal(everything.includes(UPSTREAM_SECRET), false, "no channel key in the audit log");
  });

  test("records group, price and settings changes with what changed", async () => {
    await gateway.admin("POST", "/api/admin/groups", { name: "audited", models: [MODEL] });
    await gateway.admin("POST", "/api/admin/groups", { name: "audited", models: [MODEL, "std-image-2"], rateLimitPerMinute: 30 });
    const price = (await gateway.admin("GET", "/api/admin/prices")).data.find((row: { model: string }) => row.model === MODEL);
    await gateway.admin("POST", "/api/admin/prices", { model: MODEL, textInput: price.textInput + 1 });
    const settings = await gateway.admin("GET", "/api/admin/settings");
    await gateway.admin("POST", "/api/admin/settings", { signupEnabled: !settings.signupEnabled });

    const groups = (await gateway.admin("GET", "/api/admin/audit?kind=group")).data;
    assert.ok(groups.every((row: { kind: string }) => row.kind === "group"));
    assert.equal(groups[0].summary, 'Group "audited" updated');
    assert.deepEqual(groups[0].detail.changes.models, { before: [MODEL], after: [MODEL, "std-image-2"] });
    assert.deepEqual(groups[0].detail.changes.rateLimitPerMinute, { before: null, after: 30 });
    assert.equal(groups[1].summary, 'Group "audited" created');

    const [priceRow] = (await gateway.admin("GET", "/api/admin/audit?kind=price")).data;
    assert.equal(priceRow.summary, `Price of "${MODEL}" set`);
    assert.deepEqual(priceRow.detail.changes.textInput, { before: price.textInput, after: price.textInput + 1 });

    const [settingsRow] = (await gateway.admin("GET", "/api/admin/audit?kind=settings")).data;
    assert.equal(settingsRow.summary, "Settings changed");
    assert.deepEqual(settingsRow.detail.changes.signupEnabled, { before: settings.signupEnabled, after: !settings.signupEnabled });
  });

  test("filters by who, kind of change and date", async () => {
    const mine = (await gateway.admin("GET", "/api/admin/audit?actor=master%20key&limit=1000")).data;
    assert.ok(mine.length > 0 && mine.every((row: { actor: string }) => row.actor === "master key"));
    assert.equal((await gateway.admin("GET", "/api/admin/audit?actor=nobody%40example.com")).data.length, 0);
    const channels = (await gateway.admin("GET", "/api/admin/audit?kind=channel")).data;
    assert.ok(channels.length >= 4 && channels.every((row: { action: string }) => row.action.includes("/api/admin/channels")));
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    assert.equal((await gateway.admin("GET", `/api/admin/audit?from=${tomorrow}`)).data.length, 0);
    const badKind = await status("/api/admin/audit?kind=weather");
    assert.equal(badKind.status, 400);
    assert.equal(badKind.body.error.param, "kind");
  });
});
