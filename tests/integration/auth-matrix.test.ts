// Keys on the image and Responses endpoints: the matrix of schemes and key states (Chat Completions and Messages:
// gateway-auth.test.ts), each refusal in the OpenAI dialect; refused requests cost nothing and leave no ledger row.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { gateway, keys, png, bearer } from "../helpers/auth-security-setup";

// ------------------------------------------------------------------------------------------ the auth matrix

type Endpoint = "generations" | "edits" | "responses";
const MODEL_OF: Record<Endpoint, string> = { generations: "std-image-2", edits: "std-image-2", responses: "std-5.5" };

function bodyFor(endpoint: Endpoint): { path: string; body: BodyInit; contentType?: string } {
  if (endpoint === "generations")
    return {
      path: "/v1/images/generations",
      body: JSON.stringify({ model: "std-image-2", prompt: "a red kite", size: "1024x1024", quality: "low" }),
      contentType: "application/json",
    };
  if (endpoint === "edits") {
    const form = new FormData();
    form.append("model", "std-image-2");
    form.append("prompt", "make it green");
    form.append("size", "1024x1024");
    form.append("quality", "low");
    form.append("image[]", new Blob([new Uint8Array(png)], { type: "image/png" }), "base.png");
    return { path: "/v1/images/edits", body: form };
  }
  return {
    path: "/v1/responses",
    body: JSON.stringify({
      model: "std-5.5",
      stream: true,
      instructions: "Draw what is asked",
      input: [{ role: "user", content: [{ type: "input_text", text: "a red kite" }] }],
      tools: [{ type: "image_generation", quality: "low", size: "1024x1024" }],
    }),
    contentType: "application/json",
  };
}

async function callEndpoint(
  endpoint: Endpoint,
  headers: Record<string, string>,
): Promise<{ status: number; body: any; requestId: string | null }> {
  const { path, body, contentType } = bodyFor(endpoint);
  const response = await fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { ...(contentType ? { "content-type": contentType } : {}), ...headers },
    body,
  });
  const text = await response.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // a stream: kept as text
  }
  return { status: response.status, body: parsed, requestId: response.headers.get("x-request-id") };
}

type Case = {
  cause: string;
  headers: () => Record<string, string>;
  status: number;
  code: string;
  message: (endpoint: Endpoint) => string | RegExp;
};
const BEARER = "'Authorization: Bearer sk-...'";
const MALFORMED = "Malformed API key: keys are 'sk-' followed by letters and digits, with no spaces";

const CASES: Case[] = [
  {
    cause: "no key at all",
    headers: () => ({}),
    status: 401,
    code: "missing_api_key",
    message: () => `No API key was sent; send ${BEARER}`,
  },
  {
    cause: "x-api-key alone (the Messages form) is refused",
    headers: () => ({ "x-api-key": keys.valid! }),
    status: 401,
    code: "wrong_auth_scheme",
    message: () => `This endpoint takes the key as a Bearer token, not in x-api-key; send ${BEARER}`,
  },
  {
    cause: "a Basic authorization header",
    headers: () => ({ authorization: `Basic ${Buffer.from("user:pass").toString("base64")}` }),
    status: 401,
    code: "wrong_auth_scheme",
    message: () => `Authorization must use the Bearer scheme; send ${BEARER}`,
  },
  // A lowercase "bearer" is the same scheme (RFC 9110); tests/clients/sdk-models-and-counting.test.ts serves it.
  {
    cause: "another scheme's name",
    headers: () => ({ authorization: `Token ${keys.valid}` }),
    status: 401,
    code: "wrong_auth_scheme",
    message: () => `Authorization must use the Bearer scheme; send ${BEARER}`,
  },
  {
    cause: "a key with an extra space",
    headers: () => ({ authorization: `Bearer  ${keys.valid}` }),
    status: 401,
    code: "invalid_api_key",
    message: () => MALFORMED,
  },
  {
    cause: "a key with a space inside",
    headers: () => bearer(keys.valid!.replace("sk-", "sk- ")),
    status: 401,
    code: "invalid_api_key",
    message: () => MALFORMED,
  },
  {
    cause: "a key with characters missing",
    headers: () => bearer(keys.valid!.slice(0, -3)),
    status: 401,
    code: "invalid_api_key",
    message: () => "Invalid API key: no such key",
  },
  { cause: "an injection string", headers: () => bearer("' OR 1=1--"), status: 401, code: "invalid_api_key", message: () => MALFORMED },
  {
    cause: "an injection string shaped like a key",
    headers: () => bearer(`sk-${"a".repeat(30)}' OR '1'='1`),
    status: 401,
    code: "invalid_api_key",
    message: () => MALFORMED,
  },
  {
    cause: "an expired key",
    headers: () => bearer(keys.expired!),
    status: 401,
    code: "expired_api_key",
    message: () => "This API key expired at 2020-01-01T00:00:00.000Z",
  },
  {
    cause: "a disabled key",
    headers: () => bearer(keys.disabled!),
    status: 401,
    code: "disabled_api_key",
    message: () => "This API key was disabled by the gateway's operator; only an operator can enable it again",
  },
  {
    cause: "a deleted key",
    headers: () => bearer(keys.deleted!),
    status: 401,
    code: "invalid_api_key",
    message: () => "This API key was deleted",
  },
  {
    cause: "a key whose owner is disabled",
    headers: () => bearer(keys.ownerDisabled!),
    status: 401,
    code: "disabled_api_key",
    message: () => "The account that owns this API key is disabled",
  },
  {
    cause: "a group without the model",
    headers: () => bearer(keys.otherGroup!),
    status: 403,
    code: "model_not_allowed",
    message: (endpoint) =>
      `This key's group 'haiku-only' does not include the model '${MODEL_OF[endpoint]}'; GET /v1/models lists the models this key may use`,
  },
  {
    cause: "a used-up key quota",
    headers: () => bearer(keys.noQuota!),
    status: 403,
    code: "quota_exhausted",
    message: () =>
      /^This request reserves up to \$\d+\.\d+ \(the most it can cost; the unused part is given back\) and this API key has \$0\.000000 of quota left\.( [^.]+\.)? An operator can raise the key's quota\.$/,
  },
  {
    cause: "a used-up balance",
    headers: () => bearer(keys.noBalance!),
    status: 403,
    code: "insufficient_balance",
    message: () =>
      /^This request reserves up to \$\d+\.\d+ \(the most it can cost; the unused part is given back\) and the account's balance is \$0\.000000\.( [^.]+\.)? Redeem a code or ask an operator to top it up\.$/,
  },
];

const refusedIds: string[] = [];

for (const endpoint of ["generations", "edits", "responses"] as const) {
  describe(`auth failures on ${bodyFor(endpoint).path}`, () => {
    for (const kase of CASES) {
      test(kase.cause, async () => {
        const answer = await callEndpoint(endpoint, kase.headers());
        assert.equal(answer.status, kase.status, JSON.stringify(answer.body));
        assert.match(answer.requestId ?? "", /^req_/);
        refusedIds.push(answer.requestId!);
        assert.deepEqual(Object.keys(answer.body.error).sort(), ["code", "message", "param", "type"]);
        assert.equal(answer.body.error.code, kase.code);
        const message = kase.message(endpoint);
        if (typeof message === "string") assert.equal(answer.body.error.message, message);
        else assert.match(answer.body.error.message, message);
      });
    }
  });
}

test("a valid key passes on the image and Responses endpoints (the table's control case)", async () => {
  for (const endpoint of ["generations", "edits", "responses"] as const) {
    const answer = await callEndpoint(endpoint, bearer(keys.valid!));
    assert.equal(answer.status, 200, `${endpoint}: ${String(JSON.stringify(answer.body)).slice(0, 300)}`);
    if (endpoint === "responses") assert.match(answer.body, /event: response\.completed/);
    else assert.ok(answer.body.data[0].b64_json.length > 100);
  }
});

test("refused requests on every endpoint cost nothing and leave no ledger row", async () => {
  assert.equal(refusedIds.length, CASES.length * 3);
  const rows = (await gateway.admin("GET", "/api/admin/usage?limit=1000")).data as { requestId: string }[];
  const logged = new Set(rows.map((row) => row.requestId));
  assert.deepEqual(
    refusedIds.filter((id) => logged.has(id)),
    [],
  );
});
