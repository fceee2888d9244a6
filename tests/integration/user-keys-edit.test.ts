// The owner edits their keys: rename, pause and resume, change the expiry and the cap.
// A paused key is refused at once on /v1; resumed, it works again. The playground's own key is not edited here.
// What the owner may not undo of the operator's controls: tests/integration/key-controls.test.ts.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signedIn, type Browser } from "../helpers/user-api";

let gateway: Gateway;
let user: Awaited<ReturnType<typeof createUserWithKey>>;
let browser: Browser;

before(async () => {
  gateway = await startGateway({ portal: true });
  user = await createUserWithKey(gateway, { balance: 50_000_000 });
  browser = await signedIn(gateway.url, user.email, user.password);
  // A key the owner made: its limits are the owner's to set either way (an operator's key: tests/integration/key-controls.test.ts).
  const own = await browser.call("POST", "/api/user/keys", { name: "own", unlimited: true });
  assert.equal(own.status, 201);
  user = { ...user, key: own.body.key, keyId: own.body.id };
});
after(stopAllGateways);

const chat = () =>
  fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "std-5.5", max_tokens: 8, messages: [{ role: "user", content: "hi" }] }),
  });

test("rename, pause (refused at once), resume (works again), re-cap and re-date a key", async () => {
  const renamed = await browser.call("PATCH", `/api/user/keys/${user.keyId}`, { name: "Build server" });
  assert.deepEqual([renamed.status, renamed.body.name], [200, "Build server"]);
  assert.equal((await chat()).status, 200);
  const paused = await browser.call("PATCH", `/api/user/keys/${user.keyId}`, { status: "disabled" });
  assert.equal(paused.body.status, "disabled");
  const refused = await chat();
  assert.equal(refused.status, 401);
  assert.match((await refused.json()).error.message, /paused by its owner/);
  await browser.call("PATCH", `/api/user/keys/${user.keyId}`, { status: "active" });
  assert.equal((await chat()).status, 200, "resumed");
  const capped = await browser.call("PATCH", `/api/user/keys/${user.keyId}`, { quota: 1, unlimited: false });
  assert.deepEqual([capped.body.quotaRemaining, capped.body.unlimited], [1, false]);
  assert.equal((await chat()).status, 403, "the new cap applies");
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
  const dated = await browser.call("PATCH", `/api/user/keys/${user.keyId}`, { expiresAt: tomorrow, unlimited: true });
  assert.equal(new Date(dated.body.expiresAt).toISOString(), tomorrow);
  assert.equal((await chat()).status, 200);
  const past = await browser.call("PATCH", `/api/user/keys/${user.keyId}`, { expiresAt: "2020-01-01" });
  assert.deepEqual([past.status, past.body.error.param], [400, "expiresAt"]);
  assert.equal((await browser.call("PATCH", `/api/user/keys/${user.keyId}`, {})).status, 400, "nothing to change");
});

test("the playground's key is managed by the playground", async () => {
  assert.equal(
    (
      await browser.call("POST", "/api/user/playground/v1/chat/completions", {
        model: "std-5.5",
        max_tokens: 4,
        messages: [{ role: "user", content: "x" }],
      })
    ).status,
    200,
  );
  const key = (await browser.call("GET", "/api/user/playground")).body.key;
  const edit = await browser.call("PATCH", `/api/user/keys/${key.id}`, { unlimited: true });
  assert.equal(edit.status, 409);
});
