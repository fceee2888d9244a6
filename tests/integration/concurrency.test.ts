// Money under concurrency and cut streams, on SQLite and on PostgreSQL. The quota and redeem
// races are in gateway-money.test.ts, accounts-topup.test.ts and scale-out.test.ts; this file adds:
// - key revocation during a stream. Decided behaviour: revocation refuses every request that has not been
//   authenticated yet (the next request gets 401 at once, on every instance through the cache invalidation); a stream
//   already running was paid for (its reservation is taken) and runs to its end, and is billed for what it used.
// - cut streams settle what was delivered, by either side, many at once: the ledger, the balance and the key quota
//   agree to the micro-dollar.
// - the key quota and the owner's balance move together: a reservation the balance refuses gives the key its part back.
// - no endpoint skips the reservation, whatever the account (no "trusted balance" shortcut).
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { CHAT_USAGE, startFaultUpstream, type FaultUpstream } from "../helpers/fault-upstream";
import { raceGate } from "../helpers/race-gate";
import { countTextTokens } from "@/lib/money/tokens";
import { costOf, priceFromRow, type Price } from "@/lib/money/prices";
import sharp from "sharp";

const upstreams: FaultUpstream[] = [];
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

async function account(gateway: Gateway, user: { userId: string; keyId: string }) {
  const found = (await gateway.admin("GET", "/api/admin/users?limit=1000")).data.find((row: { id: string }) => row.id === user.userId);
  const key = (await gateway.admin("GET", `/api/admin/keys?userId=${user.userId}`)).data.find(
    (row: { id: string }) => row.id === user.keyId,
  );
  return { balance: found.balance as number, quota: (key?.quotaRemaining ?? null) as number | null };
}

async function ledgerRow(gateway: Gateway, requestId: string) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const rows = (await gateway.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data;
    if (rows.length) return rows[0];
    if (Date.now() > deadline) assert.fail(`no ledger row for ${requestId}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function chat(gateway: Gateway, key: string, body: Record<string, unknown> = {}, signal?: AbortSignal) {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "std-5.5", max_tokens: 500, messages: [{ role: "user", content: "count slowly" }], ...body }),
    signal,
  });
}

/** Reads an SSE body to its end; returns the text it carried and whether it ended with [DONE]. */
async function readStream(response: Response): Promise<{ text: string; done: boolean; raw: string }> {
  const raw = await response.text();
  let text = "";
  for (const block of raw.split("\n\n")) {
    const data = block
      .split("\n")
      .find((line) => line.startsWith("data: "))
      ?.slice(6);
    if (!data || data === "[DONE]") continue;
    try {
      text += JSON.parse(data).choices?.[0]?.delta?.content ?? "";
    } catch {
      // not JSON
    }
  }
  return { text, done: raw.includes("data: [DONE]"), raw };
}

async function setUp(gateway: Gateway, upstream: FaultUpstream) {
  const simulator = (await gateway.admin("GET", "/api/admin/channels")).data.find((row: { type: string }) => row.type === "simulator");
  await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { models: ["msg-haiku-4-5-20251001"] });
  await gateway.admin("POST", "/api/admin/channels", {
    name: "slow stream",
    type: "openai",
    baseUrl: `${upstream.url}/v1`,
    apiKey: "k",
    models: ["std-5.5", "std-image-2"],
    priority: 100,
  });
  const prices = (await gateway.admin("GET", "/api/admin/prices")).data as Parameters<typeof priceFromRow>[0][];
  return priceFromRow(prices.find((price) => price.model === "std-5.5")!);
}

for (const database of ["sqlite", "postgres"] as const) {
  describe(`streams and money on ${database}`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;
    let gateway: Gateway;
    let upstream: FaultUpstream;
    let price: Price;

    test("(start a gateway and a slow upstream)", { skip }, async () => {
      gateway = await startGateway({ database });
      upstream = await startFaultUpstream("ok", { words: 20, eventPauseMs: 40 });
      upstreams.push(upstream);
      price = await setUp(gateway, upstream);
    });

    test("a key revoked (and another disabled) during their streams: both streams finish and are billed; the next request is refused", {
      skip,
    }, async () => {
      const revoked = await createUserWithKey(gateway, { balance: 10_000_000, quota: 10_000_000 });
      const disabled = await createUserWithKey(gateway, { balance: 10_000_000, quota: 10_000_000 });
      upstream.mode = "ok";
      const first = await chat(gateway, revoked.key, { stream: true });
      const second = await chat(gateway, disabled.key, { stream: true });
      assert.equal(first.status, 200);
      assert.equal(second.status, 200);
      // Both streams are running (headers in, words arriving) when the operator acts.
      await new Promise((resolve) => setTimeout(resolve, 150));
      await gateway.admin("DELETE", `/api/admin/keys/${revoked.keyId}`);
      await gateway.admin("PATCH", `/api/admin/keys/${disabled.keyId}`, { status: "disabled" });
      const refusedAtOnce = await chat(gateway, revoked.key);
      assert.equal(refusedAtOnce.status, 401, "the next request is refused at once, while the stream still runs");
      assert.equal((await refusedAtOnce.json()).error.message, "This API key was deleted");
      const disabledAtOnce = await chat(gateway, disabled.key);
      assert.equal(disabledAtOnce.status, 401);
      assert.equal(
        (await disabledAtOnce.json()).error.message,
        "This API key was disabled by the gateway's operator; only an operator can enable it again",
      );

      for (const [who, response] of [
        [revoked, first],
        [disabled, second],
      ] as const) {
        const stream = await readStream(response);
        assert.equal(stream.done, true, "the running stream was not cut");
        assert.equal(stream.text, Array.from({ length: 20 }, (_, index) => `word${index} `).join(""));
        const row = await ledgerRow(gateway, response.headers.get("x-request-id")!);
        assert.equal(row.status, "success");
        assert.deepEqual([row.textInputTokens, row.textOutputTokens], [CHAT_USAGE.prompt_tokens, CHAT_USAGE.completion_tokens]);
        assert.equal(row.cost, costOf({ textInputTokens: 11, textOutputTokens: 7, imageInputTokens: 0, imageOutputTokens: 0 }, price));
        const after = await account(gateway, who);
        assert.equal(after.balance, 10_000_000 - row.cost, "billed to the owner");
        assert.equal(after.quota, who === disabled ? 10_000_000 - row.cost : null, "and to the key (a deleted key is no longer listed)");
      }
      // Nothing of the refused requests reached the upstream.
      assert.equal(upstream.records.filter((record) => !record.stream).length, 0);
    });

    test("12 streams cut at once, 6 by their clients and 6 by the upstream: each pays exactly what it delivered, and the accounts agree", {
      skip,
    }, async () => {
      const user = await createUserWithKey(gateway, { balance: 50_000_000, quota: 40_000_000 });
      upstream.reset();
      // The upstream cuts the odd-numbered streams after three words; the clients of the even ones leave after five.
      upstream.mode = ({ body }) =>
        Number(/stream (\d+)/.exec(body?.messages?.[0]?.content ?? "")?.[1]) % 2 === 1 ? "reset-after-headers" : "ok";
      const runs = await Promise.all(
        Array.from({ length: 12 }, async (_, index) => {
          const controller = new AbortController();
          const response = await chat(
            gateway,
            user.key,
            { stream: true, messages: [{ role: "user", content: `stream ${index}` }] },
            controller.signal,
          );
          const requestId = response.headers.get("x-request-id")!;
          const reader = response.body!.getReader();
          const decoder = new TextDecoder();
          let raw = "";
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) break;
              raw += decoder.decode(value, { stream: true });
              // Clients of the "ok" streams leave after the fifth word.
              if (raw.includes("word4 ")) {
                controller.abort();
                break;
              }
            }
          } catch {
            // aborted
          }
          let text = "";
          for (const block of raw.split("\n\n")) {
            const data = block
              .split("\n")
              .find((line) => line.startsWith("data: "))
              ?.slice(6);
            if (!data || data === "[DONE]") continue;
            try {
              text += JSON.parse(data).choices?.[0]?.delta?.content ?? "";
            } catch {
              // the error event
            }
          }
          return { requestId, text, raw };
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      let total = 0;
      const statuses: string[] = [];
      for (const run of runs) {
        const row = await ledgerRow(gateway, run.requestId);
        statuses.push(row.status);
        // Delivered-only: the output tokens of the text that reached the client (a client that leaves may miss the
        // last chunk the gateway had already sent; it is charged, which is what the gateway delivered).
        const words = run.text.split(" ").filter(Boolean).length;
        const delivered = countTextTokens(run.text);
        const withNext = countTextTokens(`${run.text}word${words} `);
        assert.ok(
          row.textOutputTokens === delivered || (row.status === "cancelled" && row.textOutputTokens === withNext),
          `${row.status}: ${row.textOutputTokens} tokens for ${JSON.stringify(run.text)}`,
        );
        assert.ok(
          row.textOutputTokens < countTextTokens(Array.from({ length: 20 }, (_, index) => `word${index} `).join("")),
          "less than the whole answer",
        );
        assert.equal(
          row.cost,
          costOf(
            { textInputTokens: row.textInputTokens, textOutputTokens: row.textOutputTokens, imageInputTokens: 0, imageOutputTokens: 0 },
            price,
          ),
        );
        assert.ok(row.cost > 0 && row.cost < row.reserved);
        total += row.cost;
      }
      assert.deepEqual(statuses.sort(), [...Array(6).fill("cancelled"), ...Array(6).fill("error")]);
      const after = await account(gateway, user);
      assert.equal(after.balance, 50_000_000 - total, "the balance paid exactly the sum of the rows");
      assert.equal(after.quota, 40_000_000 - total, "and so did the key");
      assert.equal(
        upstream.records.filter((record) => record.mode === "ok" && record.abortedByGateway).length,
        6,
        "the clients that left aborted their upstream requests",
      );
    });

    test("the key quota and the owner's balance move together: 20 parallel requests, a balance that covers 3, a key that covers all", {
      skip,
    }, async () => {
      upstream.mode = "ok";
      const probe = await chat(gateway, (await createUserWithKey(gateway)).key);
      await probe.text();
      const reserved = (await ledgerRow(gateway, probe.headers.get("x-request-id")!)).reserved as number;
      const racer = await createUserWithKey(gateway, { balance: Math.floor(reserved * 3.5), quota: reserved * 100 });
      // The upstream holds its answers until every request has reserved or been refused: none settles first.
      const race = raceGate(20);
      upstream.options.hold = () => race.arrive();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          chat(gateway, racer.key).then(async (response) => {
            if (response.status !== 200) race.refused();
            return { status: response.status, body: await response.json() };
          }),
        ),
      ).finally(() => (upstream.options.hold = undefined));
      assert.equal(answers.filter((answer) => answer.status === 200).length, 3);
      for (const answer of answers.filter((entry) => entry.status !== 200)) assert.equal(answer.body.error.code, "insufficient_balance");
      const rows = (await gateway.admin("GET", `/api/admin/usage?keyId=${racer.keyId}&limit=100`)).data as { cost: number }[];
      const spent = rows.reduce((sum, row) => sum + row.cost, 0);
      const after = await account(gateway, racer);
      assert.equal(after.balance, Math.floor(reserved * 3.5) - spent);
      assert.equal(after.quota, reserved * 100 - spent, "the 17 refused by the balance gave the key its part back");
    });

    test("reservations and batched settlements never deadlock: one user, four keys, 400 requests, half charged beyond their reservation", {
      skip,
    }, async () => {
      upstream.mode = "ok";
      const owner = await createUserWithKey(gateway, { balance: 100_000_000, quota: 10_000_000 });
      const keys = [owner.key];
      const keyIds = [owner.keyId];
      for (let index = 0; index < 3; index++) {
        const created = await gateway.admin("POST", "/api/admin/keys", { userId: owner.userId, quota: 10_000_000 });
        keys.push(created.key);
        keyIds.push(created.id);
      }
      // max_tokens 1 reserves less than the 300 output tokens this upstream reports, past the cap it was sent (the
      // settlement charges the rest to the key and the balance, and flags it); max_tokens 500 reserves more (the
      // settlement gives some back).
      upstream.options.chatUsage = { prompt_tokens: 11, completion_tokens: 300 };
      let next = 0;
      const statuses: number[] = [];
      await Promise.all(
        Array.from({ length: 40 }, async () => {
          while (next < 400) {
            const index = next++;
            const response = await chat(gateway, keys[index % 4]!, {
              max_tokens: index % 2 ? 1 : 500,
              messages: [{ role: "user", content: `n${index}` }],
            });
            await response.text();
            statuses.push(response.status);
          }
        }),
      );
      upstream.options.chatUsage = CHAT_USAGE;
      assert.deepEqual([...new Set(statuses)], [200], `statuses: ${JSON.stringify(statuses.filter((status) => status !== 200))}`);
      const rows = (await gateway.admin("GET", `/api/admin/usage?userId=${owner.userId}&limit=1000`)).data as {
        keyId: string;
        cost: number;
        reserved: number;
        overReservation: number;
      }[];
      assert.equal(rows.length, 400);
      const over = rows.filter((row) => row.cost > row.reserved);
      assert.ok(over.length >= 150, "many settlements took more than was reserved");
      for (const row of over) assert.equal(row.overReservation, row.cost - row.reserved, "charged in full and flagged");
      const users = (await gateway.admin("GET", "/api/admin/users?limit=1000")).data as { id: string; balance: number }[];
      assert.equal(users.find((user) => user.id === owner.userId)!.balance, 100_000_000 - rows.reduce((sum, row) => sum + row.cost, 0));
      const listed = (await gateway.admin("GET", `/api/admin/keys?userId=${owner.userId}`)).data as {
        id: string;
        quotaRemaining: number;
      }[];
      for (const id of keyIds) {
        const spent = rows.filter((row) => row.keyId === id).reduce((sum, row) => sum + row.cost, 0);
        assert.equal(listed.find((key) => key.id === id)!.quotaRemaining, 10_000_000 - spent);
      }
      assert.doesNotMatch(gateway.output(), /deadlock|gateway handler failed/);
    });

    test("no endpoint skips the reservation: an unlimited key of an admin with no balance is refused everywhere, before any upstream call", {
      skip,
    }, async () => {
      upstream.reset();
      const admin = await gateway.admin("POST", "/api/admin/users", {
        email: `rich-${Date.now()}@example.com`,
        password: "an-admin-password-1",
        role: "admin",
        quota: 0,
      });
      const key = (await gateway.admin("POST", "/api/admin/keys", { userId: admin.id, unlimited: true })).key as string;
      const form = new FormData();
      form.append("prompt", "edit");
      form.append(
        "image[]",
        new Blob(
          [
            await sharp({ create: { width: 64, height: 64, channels: 3, background: "#fff" } })
              .png()
              .toBuffer(),
          ],
          { type: "image/png" },
        ),
        "a.png",
      );
      const calls: [string, RequestInit][] = [
        [
          "/v1/chat/completions",
          {
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({ model: "std-5.5", max_tokens: 1, messages: [{ role: "user", content: "x" }] }),
          },
        ],
        [
          "/v1/messages",
          {
            headers: { "x-api-key": key, "content-type": "application/json" },
            body: JSON.stringify({ model: "msg-haiku-4-5-20251001", max_tokens: 1, messages: [{ role: "user", content: "x" }] }),
          },
        ],
        [
          "/v1/images/generations",
          {
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({ prompt: "x", size: "1024x1024", quality: "low" }),
          },
        ],
        ["/v1/images/edits", { headers: { authorization: `Bearer ${key}` }, body: form }],
        [
          "/v1/responses",
          {
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({
              model: "std-5.5",
              stream: true,
              instructions: "x",
              input: [{ role: "user", content: "a cat" }],
              tools: [{ type: "image_generation" }],
            }),
          },
        ],
      ];
      for (const [path, init] of calls) {
        const response = await fetch(`${gateway.url}${path}`, { method: "POST", ...init });
        const body = await response.json();
        assert.equal(response.status, 403, `${path}: ${JSON.stringify(body)}`);
        assert.equal(
          path === "/v1/messages" ? body.error.type : body.error.code,
          path === "/v1/messages" ? "permission_error" : "insufficient_balance",
        );
      }
      assert.equal(upstream.records.length, 0, "nothing went upstream");
      assert.deepEqual((await gateway.admin("GET", `/api/admin/usage?userId=${admin.id}`)).data, [], "and nothing was written");
      // The same account, once it has money, is served: the refusal was the balance, not the key.
      await gateway.admin("PATCH", `/api/admin/users/${admin.id}`, { balanceDelta: 10_000_000 });
      assert.equal((await chat(gateway, key, { max_tokens: 5 })).status, 200);
    });
  });
}
