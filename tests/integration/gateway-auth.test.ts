// Every auth failure cause of docs/api.md §5/§7 on each endpoint: status and exact error body, in the endpoint's dialect.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";

let gateway: Gateway;
const keys: Record<string, string> = {};

before(async () => {
  gateway = await startGateway();
  await gateway.admin("POST", "/api/admin/groups", { name: "images-only", models: ["std-image-2"] });
  keys.valid = (await createUserWithKey(gateway)).key;
  keys.expired = (await createUserWithKey(gateway, { expiresAt: "2020-01-01T00:00:00Z" })).key;
  const disabled = await createUserWithKey(gateway);
  await gateway.admin("PATCH", `/api/admin/keys/${disabled.keyId}`, { status: "disabled" });
  keys.disabled = disabled.key;
  const deleted = await createUserWithKey(gateway);
  await gateway.admin("DELETE", `/api/admin/keys/${deleted.keyId}`);
  keys.deleted = deleted.key;
  keys.otherGroup = (await createUserWithKey(gateway, { group: "images-only" })).key;
  keys.noQuota = (await createUserWithKey(gateway, { quota: 0 })).key;
  keys.noBalance = (await createUserWithKey(gateway, { balance: 0, unlimited: true })).key;
  const ownerDisabled = await createUserWithKey(gateway);
  await gateway.admin("PATCH", `/api/admin/users/${ownerDisabled.userId}`, { status: "disabled" });
  keys.ownerDisabled = ownerDisabled.key;
});
after(stopAllGateways);

type Case = {
  cause: string;
  headers: (endpoint: "chat" | "messages") => Record<string, string>;
  status: number;
  code: string;
  message: string | RegExp;
};

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const apiKey = (key: string) => ({ "x-api-key": key });
const right = (key: () => string) => (endpoint: "chat" | "messages") => (endpoint === "chat" ? bearer(key()) : apiKey(key()));

const CASES: Case[] = [
  { cause: "no key at all", headers: () => ({}), status: 401, code: "missing_api_key", message: "" },
  // What `-H "Authorization: Bearer $GATEWAY_API_KEY"` (or `-H "x-api-key: $GATEWAY_API_KEY"`) sends while the
  // variable is unset: the 401 says that no key was sent, not that the scheme is wrong.
  {
    cause: "an empty key, as an unset variable sends it",
    headers: (endpoint) => (endpoint === "chat" ? { authorization: "Bearer " } : { "x-api-key": "" }),
    status: 401,
    code: "missing_api_key",
    message: "",
  },
  {
    cause: "'Bearer' with no key after it",
    headers: () => ({ authorization: "Bearer " }),
    status: 401,
    code: "missing_api_key",
    message: "",
  },
  {
    cause: "the wrong scheme for the endpoint",
    headers: (endpoint) => (endpoint === "chat" ? apiKey(keys.valid!) : bearer(keys.valid!)),
    status: 401,
    code: "wrong_auth_scheme",
    message: "",
  },
  {
    cause: "a Basic authorization header",
    headers: (endpoint) =>
      endpoint === "chat" ? { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` } : { authorization: "Basic abc" },
    status: 401,
    code: "wrong_auth_scheme",
    message: "",
  },
  // fetch trims header values, so the extra space goes where a person typing it would leave it inside the value.
  {
    cause: "a key with an extra space",
    headers: (endpoint) =>
      endpoint === "chat"
        ? { authorization: `Bearer  ${keys.valid}` }
        : { "x-api-key": `${keys.valid!.slice(0, 20)}  ${keys.valid!.slice(20)}` },
    status: 401,
    code: "invalid_api_key",
    message: "Malformed API key: keys are 'sk-' followed by letters and digits, with no spaces",
  },
  {
    cause: "a key with a space inside",
    headers: right(() => keys.valid!.replace("sk-", "sk- ")),
    status: 401,
    code: "invalid_api_key",
    message: "Malformed API key: keys are 'sk-' followed by letters and digits, with no spaces",
  },
  {
    cause: "a key with characters missing",
    headers: right(() => keys.valid!.slice(0, -3)),
    status: 401,
    code: "invalid_api_key",
    message: "Invalid API key: no such key",
  },
  {
    cause: "an injection string",
    headers: right(() => "' OR 1=1--"),
    status: 401,
    code: "invalid_api_key",
    message: "Malformed API key: keys are 'sk-' followed by letters and digits, with no spaces",
  },
  {
    cause: "an expired key",
    headers: right(() => keys.expired!),
    status: 401,
    code: "expired_api_key",
    message: "This API key expired at 2020-01-01T00:00:00.000Z",
  },
  {
    cause: "a disabled key",
    headers: right(() => keys.disabled!),
    status: 401,
    code: "disabled_api_key",
    message: "This API key was disabled by the gateway's operator; only an operator can enable it again",
  },
  {
    cause: "a deleted key",
    headers: right(() => keys.deleted!),
    status: 401,
    code: "invalid_api_key",
    message: "This API key was deleted",
  },
  {
    cause: "a key whose owner is disabled",
    headers: right(() => keys.ownerDisabled!),
    status: 401,
    code: "disabled_api_key",
    message: "The account that owns this API key is disabled",
  },
  { cause: "a group without the model", headers: right(() => keys.otherGroup!), status: 403, code: "model_not_allowed", message: "" },
  {
    cause: "a used-up key quota",
    headers: right(() => keys.noQuota!),
    status: 403,
    code: "quota_exhausted",
    message:
      /^This request reserves up to \$\d+\.\d+ \(the most it can cost; the unused part is given back\) and this API key has \$0\.000000 of quota left\.( [^.]+\.)? An operator can raise the key's quota\.$/,
  },
  {
    cause: "a used-up balance",
    headers: right(() => keys.noBalance!),
    status: 403,
    code: "insufficient_balance",
    message:
      /^This request reserves up to \$\d+\.\d+ \(the most it can cost; the unused part is given back\) and the account's balance is \$0\.000000\.( [^.]+\.)? Redeem a code or ask an operator to top it up\.$/,
  },
];

const ENDPOINTS = {
  chat: {
    path: "/v1/chat/completions",
    model: "std-5.5",
    body: { model: "std-5.5", max_tokens: 16, messages: [{ role: "user", content: "hi" }] },
  },
  messages: {
    path: "/v1/messages",
    model: "msg-sonnet-4-6",
    body: { model: "msg-sonnet-4-6", max_tokens: 16, messages: [{ role: "user", content: "hi" }] },
  },
} as const;

function expectedMessage(kase: Case, endpoint: "chat" | "messages"): string | RegExp {
  const scheme = endpoint === "chat" ? "'Authorization: Bearer sk-...'" : "'x-api-key: sk-...'";
  const unset = "(is the variable that should hold your key set? e.g. export GATEWAY_API_KEY=sk-...)";
  if (kase.cause === "an empty key, as an unset variable sends it" && endpoint === "messages")
    return `No API key was sent: the x-api-key header is empty ${unset}; send ${scheme}`;
  if (kase.code === "missing_api_key" && kase.cause !== "no key at all")
    return `No API key was sent: the Authorization header is 'Bearer' with no key after it ${unset}; send ${scheme}`;
  if (kase.code === "missing_api_key") return `No API key was sent; send ${scheme}`;
  if (kase.cause === "the wrong scheme for the endpoint") {
    return endpoint === "chat"
      ? `This endpoint takes the key as a Bearer token, not in x-api-key; send ${scheme}`
      : `This endpoint takes the key in the x-api-key header, not in Authorization; send ${scheme}`;
  }
  if (kase.cause === "a Basic authorization header") {
    return endpoint === "chat"
      ? `Authorization must use the Bearer scheme; send ${scheme}`
      : `This endpoint takes the key in the x-api-key header, not in Authorization; send ${scheme}`;
  }
  if (kase.code === "model_not_allowed")
    return `This key's group 'images-only' does not include the model '${ENDPOINTS[endpoint].model}'; GET /v1/models lists the models this key may use`;
  return kase.message;
}

const OPENAI_TYPES: Record<string, string> = {
  missing_api_key: "invalid_request_error",
  wrong_auth_scheme: "invalid_request_error",
  invalid_api_key: "invalid_request_error",
  expired_api_key: "invalid_request_error",
  disabled_api_key: "invalid_request_error",
  model_not_allowed: "permission_error",
  quota_exhausted: "insufficient_quota",
  insufficient_balance: "insufficient_quota",
};

for (const endpoint of ["chat", "messages"] as const) {
  describe(`auth failures on ${ENDPOINTS[endpoint].path}`, () => {
    for (const kase of CASES) {
      test(kase.cause, async () => {
        const response = await fetch(`${gateway.url}${ENDPOINTS[endpoint].path}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...kase.headers(endpoint) },
          body: JSON.stringify(ENDPOINTS[endpoint].body),
        });
        assert.equal(response.status, kase.status);
        assert.match(response.headers.get("x-request-id") ?? "", /^req_/);
        const body = await response.json();
        const message = expectedMessage(kase, endpoint);
        if (endpoint === "chat") {
          assert.deepEqual(Object.keys(body.error).sort(), ["code", "message", "param", "type"]);
          assert.equal(body.error.code, kase.code);
          assert.equal(body.error.type, OPENAI_TYPES[kase.code]);
          assert.equal(body.error.param, kase.code === "model_not_allowed" ? "model" : null);
          if (typeof message === "string") assert.equal(body.error.message, message);
          else assert.match(body.error.message, message);
        } else {
          assert.equal(body.type, "error");
          assert.deepEqual(Object.keys(body.error).sort(), ["message", "type"]);
          assert.equal(body.error.type, kase.status === 401 ? "authentication_error" : "permission_error");
          if (typeof message === "string") assert.equal(body.error.message, message);
          else assert.match(body.error.message, message);
        }
      });
    }
  });
}

test("a valid key passes on both endpoints (the table's control case)", async () => {
  for (const endpoint of ["chat", "messages"] as const) {
    const response = await fetch(`${gateway.url}${ENDPOINTS[endpoint].path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...right(() => keys.valid!)(endpoint) },
      body: JSON.stringify(ENDPOINTS[endpoint].body),
    });
    assert.equal(response.status, 200, endpoint);
  }
});

test("refused requests cost nothing and write no charge", async () => {
  const before = (await gateway.admin("GET", "/api/admin/usage?limit=1000")).data.filter((row: { cost: number }) => row.cost > 0).length;
  for (const kase of CASES) {
    await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...kase.headers("chat") },
      body: JSON.stringify(ENDPOINTS.chat.body),
    });
  }
  const afterRows = (await gateway.admin("GET", "/api/admin/usage?limit=1000")).data.filter((row: { cost: number }) => row.cost > 0).length;
  assert.equal(afterRows, before);
});

test("keys are cached, yet a revoked or disabled key is refused on the very next request", async () => {
  const user = await createUserWithKey(gateway);
  const call = () =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
      body: JSON.stringify(ENDPOINTS.chat.body),
    });
  assert.equal((await call()).status, 200);
  await gateway.admin("PATCH", `/api/admin/keys/${user.keyId}`, { status: "disabled" });
  assert.equal((await call()).status, 401);
  await gateway.admin("PATCH", `/api/admin/keys/${user.keyId}`, { status: "active" });
  assert.equal((await call()).status, 200);
  await gateway.admin("DELETE", `/api/admin/keys/${user.keyId}`);
  const refused = await call();
  assert.equal(refused.status, 401);
  assert.equal((await refused.json()).error.message, "This API key was deleted");
});
