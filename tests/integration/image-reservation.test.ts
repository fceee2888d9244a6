// An image request's reservation is an upper bound of what the vendor bills (docs/billing.md, "Image tokens"), for
// the sizes where the gateway's former token curve fell short of the vendor's arithmetic: against a fake vendor that
// bills by its own copy of that arithmetic (tests/helpers/billing-upstream.ts), each ledger row charges the bill's
// tokens, within its reservation (overReservation 0), on SQLite and PostgreSQL. Generations, an edit with a
// near-square input image, and a native Responses call with the image tool.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { startBillingUpstream, type BillingUpstream } from "../helpers/billing-upstream";

const upstreams: BillingUpstream[] = [];
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

async function row(gateway: Gateway, requestId: string) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const rows = (await gateway.admin("GET", `/api/admin/usage?requestId=${requestId}`)).data;
    if (rows.length) return rows[0];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ledger row for ${requestId}`);
}

/** The old curve's shortfalls (vendor / gateway output tokens): 1024x640 medium 956 / 486, 1280x720 high 3787 / 2295,
 * 1024x1024 high (auto quality) 7024 / 6594, 1536x1024 high 5488 / 5149. */
const GENERATIONS = [
  { size: "1024x640", quality: "medium", tokens: 956 },
  { size: "1280x720", quality: "high", tokens: 3787 },
  { size: "1024x1024", quality: "auto", tokens: 7024 },
  { size: "1536x1024", quality: "high", tokens: 5488 },
  { size: "1024x640", quality: "low", tokens: 107 },
] as const;

for (const database of ["sqlite", "postgres"] as const) {
  describe(`image reservations against the vendor's arithmetic on ${database}`, async () => {
    const skip = database === "postgres" && !(await postgresAvailable()) ? "PostgreSQL is not reachable at 127.0.0.1:5432" : false;
    let gateway: Gateway;
    let upstream: BillingUpstream;
    let key: string;

    async function expectWithinReservation(requestId: string, label: string) {
      const ledger = await row(gateway, requestId);
      const bill = upstream.bills.at(-1)!;
      assert.equal(ledger.status, "success", label);
      assert.deepEqual(
        [ledger.textInputTokens, ledger.imageInputTokens, ledger.imageOutputTokens],
        [bill.textInputTokens, bill.imageInputTokens, bill.imageOutputTokens],
        `${label}: the ledger holds the bill's tokens`,
      );
      assert.equal(ledger.overReservation, 0, `${label}: billed within the reservation (reserved ${ledger.reserved}, cost ${ledger.cost})`);
      assert.ok(ledger.cost <= ledger.reserved, `${label}: cost ${ledger.cost} <= reserved ${ledger.reserved}`);
      return { ledger, bill };
    }

    test("generations at sizes the former curve under-reserved: charged the vendor's tokens, within the reservation", {
      skip,
      timeout: 120_000,
    }, async () => {
      gateway = await startGateway({ database });
      upstream = await startBillingUpstream();
      upstreams.push(upstream);
      await gateway.admin("POST", "/api/admin/channels", {
        name: "vendor arithmetic",
        type: "openai",
        baseUrl: `${upstream.url}/v1`,
        apiKey: "o",
        models: ["std-5.5", "std-image-2"],
        settings: { responsesApi: true },
        priority: 100,
      });
      ({ key } = await createUserWithKey(gateway, { balance: 100_000_000, unlimited: true }));

      for (const { size, quality, tokens } of GENERATIONS) {
        const response = await fetch(`${gateway.url}/v1/images/generations`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ model: "std-image-2", prompt: "A lighthouse at dusk", size, quality }),
        });
        assert.equal(response.status, 200, await response.clone().text());
        const { bill } = await expectWithinReservation(response.headers.get("x-request-id")!, `${size} ${quality}`);
        assert.equal(bill.imageOutputTokens, tokens, `${size} ${quality}: the vendor's count`);
      }
    });

    test("an edit of a near-square photo at 1024x640 medium: input and output within the reservation", {
      skip,
      timeout: 60_000,
    }, async () => {
      const photo = await sharp({ create: { width: 1200, height: 1000, channels: 3, background: "#446688" } })
        .png()
        .toBuffer();
      const form = new FormData();
      form.append("model", "std-image-2");
      form.append("prompt", "Make it night");
      form.append("size", "1024x640");
      form.append("quality", "medium");
      form.append("image[]", new Blob([new Uint8Array(photo)], { type: "image/png" }), "photo.png");
      const response = await fetch(`${gateway.url}/v1/images/edits`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
        body: form,
      });
      assert.equal(response.status, 200, await response.clone().text());
      const { bill } = await expectWithinReservation(response.headers.get("x-request-id")!, "edit 1024x640 medium");
      assert.deepEqual([bill.imageInputTokens, bill.imageOutputTokens], [65 + 129 * 2 + 6240, 956], "the vendor's counts");
    });

    test("a native Responses call drawing at 1280x720 high: four images within the reservation", { skip, timeout: 60_000 }, async () => {
      const response = await fetch(`${gateway.url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "std-5.5",
          instructions: "Draw what is asked.",
          input: [{ role: "user", content: [{ type: "input_text", text: "Four lighthouses" }] }],
          tools: [{ type: "image_generation", size: "1280x720", quality: "high" }],
          stream: true,
        }),
      });
      assert.equal(response.status, 200, await response.clone().text());
      await response.text();
      const ledger = await row(gateway, response.headers.get("x-request-id")!);
      const bill = upstream.bills.at(-1)!;
      assert.equal(bill.imageOutputTokens, 4 * 3787, "the most tool calls allowed, each at the vendor's count");
      assert.equal(ledger.imageOutputTokens, bill.imageOutputTokens);
      assert.equal(ledger.overReservation, 0, `billed within the reservation (reserved ${ledger.reserved}, cost ${ledger.cost})`);
      assert.ok(ledger.cost <= ledger.reserved, `cost ${ledger.cost} <= reserved ${ledger.reserved}`);
    });
  });
}
