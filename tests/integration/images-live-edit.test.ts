// Edits sent upstream while the client uploads them (docs/decisions/0015-edits-sent-while-uploaded.md): the upstream receives the
// files as they arrive, but a complete request only once the whole upload has been checked and reserved for; a
// refusal leaves the upstream with an abandoned request, and a channel failing mid-upload hands over to the next
// channel from the copies kept on disk.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { eventually } from "../helpers/user-api";
import {
  MB,
  gateway,
  key,
  ledgerRows,
  png,
  halfMask,
  paddedPng,
  expectError,
  postForm,
  decode,
  parseForm,
  account,
} from "../helpers/images-setup";
import { createUserWithKey } from "../helpers/gateway";

/** One request as the upstream saw it, byte by byte. */
type Seen = { headers: http.IncomingHttpHeaders; bytes: number; chunks: Buffer[]; complete: boolean; closedEarly: boolean };

/** An upstream that records each request as it arrives (not only once it is complete) and answers with `answer`. */
async function watchingUpstream(answer: (seen: Seen, response: http.ServerResponse) => void, answerAtOnce = false) {
  const seen: Seen[] = [];
  const server = http.createServer((request, response) => {
    const entry: Seen = { headers: request.headers, bytes: 0, chunks: [], complete: false, closedEarly: false };
    seen.push(entry);
    request.on("data", (chunk: Buffer) => {
      entry.bytes += chunk.length;
      entry.chunks.push(chunk);
    });
    request.on("end", () => {
      entry.complete = true;
      if (!answerAtOnce) answer(entry, response);
    });
    request.on("close", () => {
      if (!entry.complete) entry.closedEarly = true;
    });
    if (answerAtOnce) answer(entry, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url, seen, close };
}

const answerImage = async () => {
  const image = (await png(1024, 1024, "#336699")).toString("base64");
  return (_seen: Seen, response: http.ServerResponse) =>
    response.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        created: 1_700_000_789,
        data: [{ b64_json: image }],
        usage: { input_tokens: 100, input_tokens_details: { text_tokens: 6, image_tokens: 94 }, output_tokens: 272 },
      }),
    );
};

async function withChannel<T>(baseUrl: string, run: () => Promise<T>, settings: Record<string, unknown> = {}): Promise<T> {
  const { id } = await gateway.admin("POST", "/api/admin/channels", {
    name: "live edit upstream",
    type: "openai",
    baseUrl: `${baseUrl}/v1`,
    apiKey: "live-edit-secret",
    models: ["std-image-2"],
    priority: 60,
    settings,
  });
  try {
    return await run();
  } finally {
    await gateway.admin("DELETE", `/api/admin/channels/${id}`);
  }
}

/** Runs with the seeded simulator switched off, so that the test's channel is the only one. */
async function alone<T>(run: () => Promise<T>): Promise<T> {
  const simulator = ((await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string }[]).find(
    (channel) => channel.type === "simulator",
  )!;
  await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "disabled" });
  try {
    return await run();
  } finally {
    await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { status: "enabled" });
  }
}

/** A multipart body written by hand, parts in the order given: [name, value] text fields, and a Buffer as the
 *  'image[]' file photo.png. */
function rawForm(parts: ([string, string] | Buffer)[]): { boundary: string; body: Buffer } {
  const boundary = `----test-${randomBytes(8).toString("hex")}`;
  const pieces = parts.map((part) =>
    Buffer.isBuffer(part)
      ? Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="image[]"; filename="photo.png"\r\nContent-Type: image/png\r\n\r\n`,
          ),
          part,
          Buffer.from("\r\n"),
        ])
      : Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part[0]}"\r\n\r\n${part[1]}\r\n`),
  );
  return { boundary, body: Buffer.concat([...pieces, Buffer.from(`--${boundary}--\r\n`)]) };
}

/** An edit request with its length announced, opened and not yet written. */
function openUpload(form: { boundary: string; body: Buffer }, apiKey = key): http.ClientRequest {
  return http.request(`${gateway.url}/v1/images/edits`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      "content-type": `multipart/form-data; boundary=${form.boundary}`,
      "content-length": String(form.body.length),
    },
  });
}

/** Sends an edit as a client's network would: the first `first` bytes, then the rest once `ready` resolves. */
function uploadInTwo(form: { boundary: string; body: Buffer }, first: number, ready: () => Promise<unknown>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = openUpload(form);
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
    });
    request.on("error", reject);
    request.write(form.body.subarray(0, first));
    ready().then(
      () => request.end(form.body.subarray(first)),
      (error) => {
        request.destroy();
        reject(error);
      },
    );
  });
}

/** How many edits the gateway has answered, whatever the status (its /metrics). */
async function editsAnswered(): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.masterKey}` } })).text();
  let total = 0;
  for (const line of text.split("\n"))
    if (line.startsWith("gateway_requests_total{") && line.includes('endpoint="/v1/images/edits"')) total += Number(line.split(" ").at(-1));
  return total;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("edits go upstream while they are uploaded", () => {
  test("the upstream receives the first file before the client has sent the rest, then the whole request", async () => {
    const upstream = await watchingUpstream(await answerImage());
    try {
      await withChannel(upstream.url, async () => {
        const image = await paddedPng(6 * MB);
        // As the openai SDK orders them: the file before the prompt.
        const sent = rawForm([["model", "std-image-2"], image, ["prompt", "add a red kite"], ["size", "1024x1024"]]);
        // The rest only once the upstream has been given most of what was sent so far.
        const answer = uploadInTwo(sent, 3 * MB, () =>
          eventually(async () => (upstream.seen[0]?.bytes ?? 0) > 2 * MB, 10_000, "the upstream receiving the upload as it arrives"),
        );
        const { status, body } = await answer;
        assert.equal(status, 200, body);
        assert.deepEqual(await decode(JSON.parse(body).data[0].b64_json), { format: "png", width: 1024, height: 1024 });
        assert.equal(upstream.seen.length, 1);
        const seen = upstream.seen[0]!;
        assert.ok(seen.complete);
        assert.equal(seen.headers["transfer-encoding"], "chunked", "a body whose length is not known in advance");
        const form = await parseForm(seen.headers, Buffer.concat(seen.chunks));
        assert.deepEqual(form.fields, { model: "std-image-2", prompt: "add a red kite", size: "1024x1024" });
        assert.equal(form.files.length, 1);
        assert.equal(form.files[0]!.field, "image[]");
        assert.equal(form.files[0]!.filename, "photo.png");
        assert.ok(form.files[0]!.data.equals(image), "the file byte for byte");
      });
    } finally {
      await upstream.close();
    }
  });

  test("an upload refused once it is read leaves the upstream an abandoned request and costs nothing", async () => {
    const upstream = await watchingUpstream(await answerImage());
    try {
      await withChannel(upstream.url, async () => {
        const image = await paddedPng(4 * MB);
        const cases: { name: string; parts: Parameters<typeof postForm>[0]; code: string; param: string; message: RegExp }[] = [
          {
            name: "a mask of other dimensions",
            parts: [
              ["image[]", image, "photo.png", "image/png"],
              ["mask", await halfMask(512, 512), "mask.png", "image/png"],
              ["prompt", "a lighthouse"],
            ],
            code: "invalid_request",
            param: "mask",
            message: /same dimensions as the first image/,
          },
          {
            name: "a prompt the content policy refuses",
            parts: [
              ["image[]", image, "photo.png", "image/png"],
              ["prompt", "a gory scene"],
            ],
            code: "content_policy_violation",
            param: "prompt",
            message: /blocked term 'gory'/,
          },
          {
            name: "a second file that is no image",
            parts: [
              ["image[]", image, "photo.png", "image/png"],
              ["image[]", Buffer.from("just some notes, not a picture"), "notes.png", "image/png"],
              ["prompt", "a lighthouse"],
            ],
            code: "invalid_request",
            param: "image[]",
            message: /'image\[\]' \(image 2 of 2\) is not a PNG, JPEG or WebP image/,
          },
        ];
        for (const refused of cases) {
          const before = upstream.seen.length;
          const requestId = await expectError(await postForm(refused.parts), 400, refused.code, refused.param, refused.message);
          assert.deepEqual(await ledgerRows(requestId), [], `${refused.name}: no ledger row`);
          const opened = await eventually(
            async () => {
              const started = upstream.seen.slice(before);
              return started.every((seen) => seen.closedEarly) && started;
            },
            5_000,
            `${refused.name}: the upstream's request dropped`,
          );
          assert.ok(
            opened.every((seen) => !seen.complete),
            `${refused.name}: the upstream never received a complete request`,
          );
        }
      });
    } finally {
      await upstream.close();
    }
  });

  test("a client that leaves in the middle of its upload: the upstream's request is dropped, nothing is charged, the next edit works", async () => {
    const upstream = await watchingUpstream(await answerImage());
    const leaver = await createUserWithKey(gateway, { balance: 500_000_000, quota: 500_000_000 });
    try {
      await withChannel(upstream.url, async () => {
        const before = await account(leaver.userId);
        const answeredBefore = await editsAnswered();
        const form = rawForm([["model", "std-image-2"], await paddedPng(8 * MB), ["prompt", "a lighthouse"]]);
        const outcome = await new Promise<string>((resolve) => {
          const request = openUpload(form, leaver.key);
          request.on("response", (response) => resolve(`answered ${response.statusCode} before the upload was complete`));
          request.on("error", () => resolve("left"));
          request.write(form.body.subarray(0, 4 * MB));
          // Gone once the upstream has most of what was sent, with half of the image still to come.
          eventually(async () => (upstream.seen[0]?.bytes ?? 0) > 3 * MB, 10_000, "the upstream receiving the upload").then(
            () => {
              request.destroy();
              resolve("left");
            },
            (error: Error) => resolve(error.message),
          );
        });
        assert.equal(outcome, "left");
        await eventually(async () => upstream.seen[0]?.closedEarly === true, 5_000, "the upstream's request dropped");
        assert.equal(upstream.seen[0]!.complete, false, "the upstream never received a complete request");
        // The handler finished (its answer counted, though nobody read it): it did not wait forever for the rest.
        await eventually(async () => (await editsAnswered()) === answeredBefore + 1, 5_000, "the abandoned edit finished");
        assert.deepEqual(await account(leaver.userId), before, "the balance and the key's quota are untouched");
        // The gateway is fine: the same client's next edit goes through.
        const response = await postForm(
          [
            ["image[]", await png(256, 256), "photo.png", "image/png"],
            ["prompt", "a lighthouse"],
            ["size", "1024x1024"],
          ],
          leaver.key,
        );
        assert.equal(response.status, 200, await response.clone().text());
        assert.equal(upstream.seen.length, 2);
      });
      // The same when the upload is stored before anything goes upstream (a channel with streamUploads: false).
      await withChannel(
        upstream.url,
        async () => {
          const answeredBefore = await editsAnswered();
          const form = rawForm([["model", "std-image-2"], await paddedPng(8 * MB), ["prompt", "a lighthouse"]]);
          const request = openUpload(form, leaver.key);
          request.on("error", () => undefined);
          request.write(form.body.subarray(0, 4 * MB));
          await pause(300);
          request.destroy();
          await eventually(async () => (await editsAnswered()) === answeredBefore + 1, 5_000, "the abandoned stored edit finished");
          assert.equal(upstream.seen.length, 2, "nothing went upstream");
          assert.deepEqual(await account(leaver.userId), await account(leaver.userId));
        },
        { streamUploads: false },
      );
    } finally {
      await upstream.close();
    }
  });

  test("a channel failing while the upload arrives: the next channel gets the files from the copies kept on disk", async () => {
    // Answers 503 at once, without waiting for the body.
    const failing = await watchingUpstream((_seen, response) => {
      response.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "overloaded" } }));
    }, true);
    try {
      await withChannel(failing.url, async () => {
        const image = await paddedPng(5 * MB);
        const response = await postForm([
          ["image[]", image, "photo.png", "image/png"],
          ["prompt", "a lighthouse at dusk"],
          ["size", "1024x1024"],
        ]);
        const text = await response.text();
        assert.equal(response.status, 200, text);
        // The seeded simulator (the next channel) rendered the edit from the uploaded image.
        assert.deepEqual(await decode(JSON.parse(text).data[0].b64_json), { format: "png", width: 1024, height: 1024 });
        const [row] = await ledgerRows(response.headers.get("x-request-id")!);
        assert.equal(row.channelName, "Built-in simulator (offline)");
        assert.equal(failing.seen.length, 1);
        assert.equal(failing.seen[0]!.complete, false, "the failing channel never got a complete request");
      });
    } finally {
      await failing.close();
    }
  });

  test("with one channel, a failure while the upload arrives is the answer, and nothing is charged", async () => {
    const failing = await watchingUpstream((_seen, response) => {
      response
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: "Your organization must be verified to use this model", type: "invalid_request_error" } }));
    }, true);
    try {
      await alone(() =>
        withChannel(failing.url, async () => {
          const response = await postForm([
            ["image[]", await paddedPng(3 * MB), "photo.png", "image/png"],
            ["prompt", "a lighthouse"],
          ]);
          const requestId = await expectError(response, 400, "invalid_request", null, /must be verified/);
          const rows = await ledgerRows(requestId);
          assert.ok(
            rows.every((row) => row.cost === 0),
            "nothing charged",
          );
        }),
      );
    } finally {
      await failing.close();
    }
  });

  test("the channel's deadline for an answer counts from the end of the upload, not from its start", async () => {
    const upstream = await watchingUpstream(await answerImage());
    const silent = await watchingUpstream(() => undefined);
    try {
      const image = await paddedPng(2 * MB);
      await alone(async () => {
        // An upload that takes ~2 s against a 1 s deadline: the upstream answers at once once it has the whole request.
        await withChannel(
          upstream.url,
          async () => {
            const { status, body } = await uploadInTwo(rawForm([["prompt", "a slow upload"], image]), MB, () => pause(2_000));
            assert.equal(status, 200, body);
            assert.equal(upstream.seen[0]!.complete, true);
          },
          { timeoutMs: 1_000 },
        );
        // The deadline still holds once the upload is complete: an upstream that never answers is a 504.
        await withChannel(
          silent.url,
          async () => {
            const started = Date.now();
            const { status, body } = await uploadInTwo(rawForm([["prompt", "a slow upload"], image]), MB, () => pause(1_500));
            assert.equal(status, 504, body);
            assert.match(JSON.parse(body).error.message, /did not answer within 1 s/);
            assert.ok(Date.now() - started >= 2_400, "the deadline started when the upload was complete");
          },
          { timeoutMs: 1_000 },
        );
      });
    } finally {
      await upstream.close();
      await silent.close();
    }
  });

  test("a channel set to streamUploads: false gets the edit once it is stored, with its length announced", async () => {
    const upstream = await watchingUpstream(await answerImage());
    try {
      const image = await paddedPng(2 * MB);
      await withChannel(
        upstream.url,
        async () => {
          const response = await postForm([
            ["image[]", image, "photo.png", "image/png"],
            ["prompt", "a lighthouse"],
          ]);
          assert.equal(response.status, 200, await response.text());
          const seen = upstream.seen[0]!;
          assert.equal(seen.headers["transfer-encoding"], undefined);
          assert.equal(Number(seen.headers["content-length"]), seen.bytes);
          const form = await parseForm(seen.headers, Buffer.concat(seen.chunks));
          assert.deepEqual(form.fields, { model: "std-image-2", prompt: "a lighthouse" });
          assert.ok(form.files[0]!.data.equals(image));
        },
        { streamUploads: false },
      );
    } finally {
      await upstream.close();
    }
  });
});
