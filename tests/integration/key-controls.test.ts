// A key's owner cannot undo the operator's controls (lib/keys/controls.ts, docs/api.md "Keys: the owner and the
// operator"): the operator's disable and the owner's pause are separate switches, and limits the operator set may be
// tightened by the owner, never loosened. Over real HTTP on SQLite, and on PostgreSQL with two instances sharing
// Redis: the writes go to the first, the /v1 calls to the second, whose key cache was warm, so each change is seen
// at once across instances.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, postgresAvailable, REDIS_TEST_URL, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { callApi, signedIn, type Browser } from "../helpers/user-api";

after(stopAllGateways);

const DAY_MS = 86_400_000;

type Key = {
  id: string;
  status: string;
  disabledByOperator: boolean;
  pausedByOwner: boolean;
  quotaByOperator: boolean;
  operatorExpiresAt: string | null;
  quotaRemaining: number;
  unlimited: boolean;
  expiresAt: string | null;
};

function keyControlTests(database: "sqlite" | "postgres") {
  let gateway: Gateway;
  /** Where /v1 is called: the same process on SQLite, a second one on PostgreSQL (events through Redis). */
  let served: Gateway;

  before(async () => {
    if (database === "sqlite") {
      gateway = await startGateway({ portal: true });
      served = gateway;
      return;
    }
    const shared = { GATEWAY_SECRET: "a-shared-secret-for-both-instances-0123456789", REDIS_URL: REDIS_TEST_URL };
    gateway = await startGateway({ database, portal: true, env: shared });
    served = await startGateway({ databaseUrl: gateway.databaseUrl, env: { ...shared, GATEWAY_MASTER_KEY: gateway.masterKey } });
  });

  const chat = (key: string) =>
    fetch(`${served.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
    });
  const messages = (key: string) =>
    fetch(`${served.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: "msg-haiku-4-5-20251001", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
    });
  /** The key works on /v1 (and its answer is read, so nothing is left open). */
  const works = async (key: string, what: string) => {
    const response = await chat(key);
    assert.equal(response.status, 200, `${what}: ${await response.text()}`);
    await response.text().catch(() => undefined);
  };
  /** The key is refused on /v1 in both dialects as disabled. */
  const refused = async (key: string, what: string) => {
    const openai = await chat(key);
    assert.equal(openai.status, 401, what);
    const error = (await openai.json()).error;
    assert.equal(error.code, "disabled_api_key", what);
    assert.match(error.message, /disabled by the gateway.s operator|paused by its owner/, what);
    const anthropic = await messages(key);
    assert.equal(anthropic.status, 401, what);
    const body = await anthropic.json();
    assert.deepEqual([body.type, body.error.type], ["error", "authentication_error"], what);
  };
  const ownKey = async (browser: Browser, id: string): Promise<Key> =>
    (await browser.call("GET", "/api/user/keys")).body.data.find((key: Key) => key.id === id);
  const operatorKey = async (userId: string, id: string): Promise<Key> =>
    (await gateway.admin("GET", `/api/admin/keys?userId=${userId}`)).data.find((key: Key) => key.id === id);
  const patch = (browser: Browser, id: string, body: unknown) => browser.call("PATCH", `/api/user/keys/${id}`, body);

  test("the reproduction: after the operator disables a key, the owner's PATCH {status: active, unlimited, expiresAt: null} is a 403 and the key stays refused", async () => {
    const owner = await createUserWithKey(gateway, { balance: 50_000_000, quota: 5_000_000 });
    const browser = await signedIn(gateway.url, owner.email, owner.password);
    await works(owner.key, "before");
    await gateway.admin("PATCH", `/api/admin/keys/${owner.keyId}`, { status: "disabled" });
    await refused(owner.key, "disabled by the operator");
    const before = await ownKey(browser, owner.keyId);

    const undo = await patch(browser, owner.keyId, { status: "active", unlimited: true, expiresAt: null });
    assert.equal(undo.status, 403, JSON.stringify(undo.body));
    assert.equal(undo.body.error.param, "status");
    assert.match(undo.body.error.message, /An operator disabled this key: only an operator can enable it again/);
    await refused(owner.key, "after the owner's attempt");
    const stored = await ownKey(browser, owner.keyId);
    assert.deepEqual([stored.status, stored.disabledByOperator, stored.pausedByOwner], ["disabled", true, false]);
    assert.deepEqual(stored, before, "nothing of the attempt was written");

    await gateway.admin("PATCH", `/api/admin/keys/${owner.keyId}`, { status: "active" });
    await works(owner.key, "enabled again by the operator");
  });

  test("the owner pauses and resumes; the operator's disable survives the owner's pause, resume and edits; each side lifts only its own", async () => {
    const owner = await createUserWithKey(gateway, { balance: 50_000_000 });
    const browser = await signedIn(gateway.url, owner.email, owner.password);
    const made = await browser.call("POST", "/api/user/keys", { name: "own", quota: 3_000_000 });
    assert.equal(made.status, 201);
    const key = made.body.key as string;
    const id = made.body.id as string;
    assert.deepEqual([made.body.quotaByOperator, made.body.operatorExpiresAt, made.body.pausedByOwner], [false, null, false]);
    await works(key, "new");

    const paused = await patch(browser, id, { status: "disabled" });
    assert.deepEqual(
      [paused.status, paused.body.status, paused.body.pausedByOwner, paused.body.disabledByOperator],
      [200, "disabled", true, false],
    );
    await refused(key, "paused by its owner");
    assert.match((await (await chat(key)).json()).error.message, /paused by its owner/, "/v1 says which switch");
    const topup = await callApi(gateway.url, "POST", "/api/user/topup", {
      body: { key: "GW-AAAAA-BBBBB-CCCCC-DDDDD" },
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(topup.status, 401);
    assert.match(topup.body.error.message, /paused by its owner/, "the account API says which switch");
    assert.equal((await patch(browser, id, { status: "active" })).status, 200);
    await works(key, "resumed");

    // The operator disables; the owner's pause and resume are theirs alone and do not lift it.
    await gateway.admin("PATCH", `/api/admin/keys/${id}`, { status: "disabled" });
    await refused(key, "disabled by the operator");
    const byOperator = await callApi(gateway.url, "POST", "/api/user/topup", {
      body: { key: "GW-AAAAA-BBBBB-CCCCC-DDDDD" },
      headers: { authorization: `Bearer ${key}` },
    });
    assert.match(byOperator.body.error.message, /disabled by the gateway's operator/);
    const renamed = await patch(browser, id, { name: "still off", quota: 2_000_000 });
    assert.deepEqual(
      [renamed.status, renamed.body.status, renamed.body.disabledByOperator],
      [200, "disabled", true],
      "edits are fine; the key stays off",
    );
    await refused(key, "after a rename");
    assert.equal((await patch(browser, id, { status: "disabled" })).status, 200, "the owner may pause it too");
    assert.equal((await patch(browser, id, { status: "active" })).status, 403, "but not resume past the operator");
    await refused(key, "after the refused resume");

    // The operator enables: the owner's pause, still on, keeps it off; both states show to both sides.
    await gateway.admin("PATCH", `/api/admin/keys/${id}`, { status: "active" });
    await refused(key, "enabled by the operator, still paused by its owner");
    const seen = await operatorKey(owner.userId, id);
    assert.deepEqual([seen.status, seen.disabledByOperator, seen.pausedByOwner], ["disabled", false, true]);
    assert.equal((await patch(browser, id, { status: "active" })).status, 200);
    await works(key, "both switches on");
    const audit = await gateway.admin("GET", `/api/admin/audit?targetId=${id}`);
    assert.deepEqual(audit.data[0].detail, { fields: ["status"] }, "the trail says which fields the operator changed");
  });

  test("a quota the operator set: the owner may lower it, not raise it, not make it unlimited; handed back, it is the owner's", async () => {
    const owner = await createUserWithKey(gateway, { balance: 50_000_000, quota: 4_000_000 });
    const browser = await signedIn(gateway.url, owner.email, owner.password);
    assert.equal((await ownKey(browser, owner.keyId)).quotaByOperator, true, "a key the operator made");

    const raise = await patch(browser, owner.keyId, { quota: 9_000_000 });
    assert.deepEqual([raise.status, raise.body.error.param], [403, "quota"]);
    assert.match(
      raise.body.error.message,
      /An operator set this key's spending limit: you may lower it, not raise it \(send a quota of at most 4000000 micro-USD/,
    );
    const unlimited = await patch(browser, owner.keyId, { unlimited: true });
    assert.deepEqual([unlimited.status, unlimited.body.error.param], [403, "unlimited"]);
    assert.equal((await ownKey(browser, owner.keyId)).quotaRemaining, 4_000_000, "nothing written");

    const lower = await patch(browser, owner.keyId, { quota: 1_500_000, unlimited: false });
    assert.deepEqual([lower.status, lower.body.quotaRemaining], [200, 1_500_000]);
    assert.equal((await patch(browser, owner.keyId, { quota: 2_000_000 })).status, 403, "lowered is lowered: back up needs the operator");
    await works(owner.key, "within the lowered quota");

    // The operator raises it again (still theirs), then hands it to the owner.
    await gateway.admin("PATCH", `/api/admin/keys/${owner.keyId}`, { quota: 6_000_000 });
    assert.equal((await patch(browser, owner.keyId, { quota: 7_000_000 })).status, 403);
    await gateway.admin("PATCH", `/api/admin/keys/${owner.keyId}`, { quotaByOperator: false });
    const free = await patch(browser, owner.keyId, { unlimited: true });
    assert.deepEqual([free.status, free.body.unlimited, free.body.quotaByOperator], [200, true, false]);

    // An unlimited key of the operator's: the owner may give it a cap, not take the cap off again.
    const wide = await createUserWithKey(gateway, { balance: 50_000_000, unlimited: true });
    const wideBrowser = await signedIn(gateway.url, wide.email, wide.password);
    const alone = await patch(wideBrowser, wide.keyId, { quota: 1_000_000 });
    assert.deepEqual([alone.status, alone.body.error.param], [400, "quota"], "a quota alone on a key without a cap changes nothing");
    const capped = await patch(wideBrowser, wide.keyId, { quota: 1_000_000, unlimited: false });
    assert.deepEqual([capped.status, capped.body.unlimited, capped.body.quotaRemaining], [200, false, 1_000_000]);
    assert.equal((await patch(wideBrowser, wide.keyId, { unlimited: true })).status, 403);
  });

  test("an expiry the operator set: the owner may bring it forward and back up to it, not past it, not remove it; an expired key is refused", async () => {
    const ceiling = new Date(Date.now() + 10 * DAY_MS);
    const owner = await createUserWithKey(gateway, { balance: 50_000_000, expiresAt: ceiling.toISOString() });
    const browser = await signedIn(gateway.url, owner.email, owner.password);
    assert.equal(new Date((await ownKey(browser, owner.keyId)).operatorExpiresAt!).getTime(), ceiling.getTime());

    const lift = await patch(browser, owner.keyId, { expiresAt: null });
    assert.deepEqual([lift.status, lift.body.error.param], [403, "expiresAt"]);
    assert.match(
      lift.body.error.message,
      new RegExp(`An operator set this key to expire at ${ceiling.toISOString()}: you may choose an earlier date`),
    );
    const later = await patch(browser, owner.keyId, { expiresAt: new Date(ceiling.getTime() + DAY_MS).toISOString() });
    assert.equal(later.status, 403);
    assert.equal(new Date((await ownKey(browser, owner.keyId)).expiresAt!).getTime(), ceiling.getTime(), "nothing written");

    const sooner = new Date(Date.now() + 3 * DAY_MS).toISOString();
    const forward = await patch(browser, owner.keyId, { expiresAt: sooner });
    assert.deepEqual([forward.status, forward.body.expiresAt], [200, sooner]);
    const back = await patch(browser, owner.keyId, { expiresAt: ceiling.toISOString() });
    assert.deepEqual([back.status, back.body.expiresAt], [200, ceiling.toISOString()], "up to the operator's date is the owner's own");
    await works(owner.key, "within the expiry");

    // The operator's expiry passes: refused, and the owner cannot extend it.
    await gateway.admin("PATCH", `/api/admin/keys/${owner.keyId}`, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    const expired = await chat(owner.key);
    assert.equal(expired.status, 401);
    assert.equal((await expired.json()).error.code, "expired_api_key");
    assert.equal((await patch(browser, owner.keyId, { expiresAt: new Date(Date.now() + DAY_MS).toISOString() })).status, 403);

    // The operator lifts the expiry: the owner's to set and lift again.
    await gateway.admin("PATCH", `/api/admin/keys/${owner.keyId}`, { expiresAt: null });
    const own = await patch(browser, owner.keyId, { expiresAt: sooner });
    assert.equal(own.status, 200);
    assert.equal((await patch(browser, owner.keyId, { expiresAt: null })).status, 200);
    await works(owner.key, "no expiry");
  });
}

describe("key controls on SQLite", () => keyControlTests("sqlite"));

describe("key controls on PostgreSQL with two instances and Redis", async () => {
  if (!(await postgresAvailable())) {
    test("PostgreSQL is not reachable on 127.0.0.1:5432", { skip: true }, () => undefined);
    return;
  }
  keyControlTests("postgres");
});
