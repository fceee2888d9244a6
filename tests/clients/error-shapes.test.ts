// One error shape outside /v1/messages: the account, operator and /v1 APIs all answer
// {error: {message, type, code, param}}, with messages written for people.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { signIn } from "../helpers/session";

let gateway: Gateway;
let cookie: string;
let key: string;

before(async () => {
  gateway = await startGateway({ portal: true });
  const user = await createUserWithKey(gateway);
  key = user.key;
  const signedIn = await signIn(gateway.url, user.email, user.password);
  assert.ok(signedIn.ok);
  cookie = signedIn.cookie;
});
after(() => stopAllGateways());

test("the account, operator and OpenAI-dialect APIs share one error shape; validator text is written for people", async () => {
  const account = await fetch(`${gateway.url}/api/user/2fa/enable`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(account.status, 400);
  assert.deepEqual(await account.json(), {
    error: {
      message: "Send 'code': the 6-digit code from your authenticator app (or one of your backup codes)",
      type: "invalid_request_error",
      code: "invalid_request",
      param: "code",
    },
  });
  const operator = await fetch(`${gateway.url}/api/admin/users`, {
    method: "POST",
    headers: { authorization: `Bearer ${gateway.masterKey}`, "content-type": "application/json" },
    body: JSON.stringify({ email: "x@example.com" }),
  });
  assert.equal(operator.status, 400);
  assert.deepEqual(await operator.json(), {
    error: {
      message: "Send 'password': it is required (a string)",
      type: "invalid_request_error",
      code: "invalid_request",
      param: "password",
    },
  });
  const gatewayError = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "std-5.5" }),
  });
  assert.deepEqual(Object.keys((await gatewayError.json()).error).sort(), ["code", "message", "param", "type"]);
  const topup = await fetch(`${gateway.url}/api/user/topup`, {
    method: "POST",
    headers: { authorization: `bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ key: "NOPE-NOPE" }),
  });
  assert.deepEqual(
    Object.keys((await topup.json()).error).sort(),
    ["code", "message", "param", "type"],
    "a lowercase bearer works there too, with the same shape",
  );
});
