// The official SDKs' helpers on top of the endpoints: openai's responses.stream().finalResponse() rebuilds the response
// from response.completed, so the images must be in it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import sharp from "sharp";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";

let gateway: Gateway;
let key: string;

before(async () => {
  gateway = await startGateway();
  ({ key } = await createUserWithKey(gateway, { balance: 500_000_000, quota: 500_000_000 }));
  const simulator = ((await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string }[]).find(
    (channel) => channel.type === "simulator",
  )!;
  await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { settings: { responsesThinkMs: 10, responsesImageMs: 30 } });
});
after(() => stopAllGateways());

test("openai responses.stream().finalResponse() holds every image, decodable, as the stream delivered it", async () => {
  const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const stream = client.responses.stream({
    model: "std-5.5",
    instructions: "Draw what is asked.",
    input: [{ role: "user", content: [{ type: "input_text", text: "Two images of a lighthouse" }] }],
    tools: [{ type: "image_generation", size: "1024x1024", quality: "low" }],
  });
  const delivered: string[] = [];
  stream.on("response.output_item.done", (event) => {
    if (event.item.type === "image_generation_call" && event.item.result) delivered.push(event.item.result);
  });
  const final = await stream.finalResponse();
  const images = final.output.filter((item) => item.type === "image_generation_call");
  assert.equal(images.length, 2);
  assert.deepEqual(
    images.map((item) => (item as { result?: string }).result),
    delivered,
    "the same images, in order",
  );
  for (const item of images) {
    const metadata = await sharp(Buffer.from((item as { result: string }).result, "base64")).metadata();
    assert.deepEqual([metadata.width, metadata.height], [1024, 1024]);
  }
});

test("a prompt asking for more images than a response may hold: four are made and the response ends incomplete, saying why", async () => {
  const response = await fetch(`${gateway.url}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "std-5.5",
      instructions: "Draw what is asked.",
      stream: true,
      input: [{ role: "user", content: "Six images of a fox" }],
      tools: [{ type: "image_generation", size: "1024x1024", quality: "low" }],
    }),
  });
  const events = [...(await response.text()).matchAll(/^data: (.+)$/gm)].map((match) => JSON.parse(match[1]!));
  assert.equal(events.filter((event) => event.type === "response.image_generation_call.partial_image").length, 4);
  const last = events.at(-1)!;
  assert.equal(last.type, "response.incomplete");
  assert.equal(last.response.status, "incomplete");
  assert.deepEqual(last.response.incomplete_details, { reason: "max_images" });
  assert.equal(last.response.output.filter((item: { type: string }) => item.type === "image_generation_call").length, 4);
  const row = (await gateway.admin("GET", `/api/admin/usage?requestId=${response.headers.get("x-request-id")}`)).data[0];
  assert.equal(row.status, "success", "it ended as designed");
  assert.equal(row.detail.imagesDelivered, 4);
});
