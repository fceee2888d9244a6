import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { GatewayError } from "@/lib/platform/errors";
import { formatBytes, multipartBody, parseMultipart } from "@/lib/platform/http/multipart";

const MB = 1024 * 1024;
let directory = "";

// A real garbage collection before each memory reading, so the numbers show what is still held, not what is
// merely uncollected yet.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

before(async () => {
  directory = await mkdtemp(join(tmpdir(), "multipart-test-"));
});

after(async () => {
  await rm(directory, { recursive: true, force: true });
});

function post(body: BodyInit | ReadableStream<Uint8Array>, contentType?: string): Request {
  const headers = contentType ? { "content-type": contentType } : undefined;
  // duplex is required by Node for a streamed body; the DOM typings do not know it yet.
  return new Request("http://gateway.test/v1/images/edits", { method: "POST", body, headers, duplex: "half" } as RequestInit);
}

function isError(code: string, pattern?: RegExp) {
  return (error: unknown) => error instanceof GatewayError && error.code === code && (!pattern || pattern.test(error.message));
}

async function uploadDirectory(): Promise<string> {
  return mkdtemp(join(directory, "uploads-"));
}

test("an upload with two image[] files and a mask round-trips with identical bytes", async () => {
  const first = randomBytes(300 * 1024);
  const second = randomBytes(1.5 * MB);
  const mask = randomBytes(64 * 1024);
  const form = new FormData();
  form.append("model", "std-image-2");
  form.append("prompt", "Put a hat on the cat — «ünïcödé» 🐱");
  form.append("image[]", new Blob([first], { type: "image/png" }), "first image.png");
  form.append("image[]", new Blob([second], { type: "image/png" }), "second.png");
  form.append("mask", new Blob([mask], { type: "image/png" }), "mask.png");
  const tmpDir = await uploadDirectory();

  const parsed = await parseMultipart(post(form), { maxFileBytes: 50 * MB, tmpDir });
  assert.deepEqual(parsed.fields, { model: "std-image-2", prompt: "Put a hat on the cat — «ünïcödé» 🐱" });
  assert.deepEqual(
    parsed.files.map(({ field, filename, contentType, size }) => ({ field, filename, contentType, size })),
    [
      { field: "image[]", filename: "first image.png", contentType: "image/png", size: first.length },
      { field: "image[]", filename: "second.png", contentType: "image/png", size: second.length },
      { field: "mask", filename: "mask.png", contentType: "image/png", size: mask.length },
    ],
  );
  assert.ok((await readFile(parsed.files[0]!.path)).equals(first));

  // Relay: the outgoing body announces its length up front and matches it exactly.
  const measured = multipartBody(parsed.fields, parsed.files);
  const bytes = Buffer.from(await new Response(measured.body).arrayBuffer());
  assert.equal(bytes.length, measured.contentLength);
  assert.match(measured.contentType, /^multipart\/form-data; boundary=\S+$/);

  const relayed = multipartBody(parsed.fields, parsed.files);
  const reparsed = await parseMultipart(post(relayed.body, relayed.contentType), { maxFileBytes: 50 * MB, tmpDir });
  assert.deepEqual(reparsed.fields, parsed.fields);
  assert.deepEqual(
    reparsed.files.map(({ field, filename, contentType, size }) => ({ field, filename, contentType, size })),
    parsed.files.map(({ field, filename, contentType, size }) => ({ field, filename, contentType, size })),
  );
  for (const [index, original] of [first, second, mask].entries()) {
    assert.ok((await readFile(reparsed.files[index]!.path)).equals(original), `file ${index} differs`);
  }

  await parsed.cleanup();
  await reparsed.cleanup();
  assert.deepEqual(await readdir(tmpDir), [], "cleanup removes every temporary file");
});

test("a 60 MB file is refused while streaming, without reading the rest or holding it in memory", async (context) => {
  const boundary = "----memory-test";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nbig\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="image[]"; filename="huge.png"\r\nContent-Type: image/png\r\n\r\n`,
  );
  const total = 60 * MB;
  const chunkSize = 256 * 1024;
  let sent = 0;
  let cancelled = false;
  let peakRss = 0;
  let peakLiveRss = 0;
  let peakLiveArrayBuffers = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array(head));
    },
    pull(controller) {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      if (sent % (4 * MB) === 0) {
        // Every 4 MB, what is still referenced: garbage chunks would otherwise hide (or fake) buffering.
        collectGarbage();
        const memory = process.memoryUsage();
        peakLiveRss = Math.max(peakLiveRss, memory.rss);
        peakLiveArrayBuffers = Math.max(peakLiveArrayBuffers, memory.arrayBuffers);
      }
      if (sent >= total) {
        controller.enqueue(new TextEncoder().encode(`\r\n--${boundary}--\r\n`));
        controller.close();
        return;
      }
      // A fresh chunk each time, as a socket delivers them.
      controller.enqueue(new Uint8Array(chunkSize).fill(sent / chunkSize));
      sent += chunkSize;
    },
    cancel() {
      cancelled = true;
    },
  });
  const tmpDir = await uploadDirectory();

  collectGarbage();
  const before = process.memoryUsage();
  await assert.rejects(
    parseMultipart(post(body, `multipart/form-data; boundary=${boundary}`), { maxFileBytes: 50 * MB, tmpDir }),
    (error: unknown) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.code, "file_too_large");
      assert.equal(error.status, 413);
      assert.equal(error.param, "image[]");
      assert.equal(error.message, "File for field 'image[]' is larger than the 50 MB limit");
      return true;
    },
  );
  collectGarbage();
  const afterwards = process.memoryUsage();

  const liveRssGrowth = (peakLiveRss - before.rss) / MB;
  const liveArrayBufferGrowth = (peakLiveArrayBuffers - before.arrayBuffers) / MB;
  const rssGrowth = (peakRss - before.rss) / MB;
  const retained = (afterwards.rss - before.rss) / MB;
  context.diagnostic(
    `read ${(sent / MB).toFixed(2)} MB of 60; live peak growth: rss ${liveRssGrowth.toFixed(1)} MB, arrayBuffers ` +
      `${liveArrayBufferGrowth.toFixed(1)} MB; peak rss growth sampled every chunk ${rssGrowth.toFixed(1)} MB; rss after ${retained.toFixed(1)} MB`,
  );
  assert.ok(cancelled, "the request body is cancelled");
  assert.ok(sent <= 51 * MB, `read ${sent} bytes after the limit was hit`);
  assert.ok(liveRssGrowth < 16, `rss grew by ${liveRssGrowth} MB`);
  assert.ok(liveArrayBufferGrowth < 16, `arrayBuffers grew by ${liveArrayBufferGrowth} MB`);
  // Sampled at every chunk, between the forced collections: still far less than the upload.
  assert.ok(rssGrowth < 45, `rss peaked ${rssGrowth} MB above the start`);
  assert.deepEqual(await readdir(tmpDir), [], "temporary files are deleted");
});

test("a file of exactly the limit is accepted, one byte more is refused", async () => {
  const tmpDir = await uploadDirectory();
  const exact = new FormData();
  exact.append("image[]", new Blob([randomBytes(1024)]), "a.png");
  const parsed = await parseMultipart(post(exact), { maxFileBytes: 1024, tmpDir });
  assert.equal(parsed.files[0]!.size, 1024);
  await parsed.cleanup();

  const over = new FormData();
  over.append("mask", new Blob([randomBytes(1025)]), "a.png");
  await assert.rejects(
    parseMultipart(post(over), { maxFileBytes: 1024, tmpDir }),
    isError("file_too_large", /^File for field 'mask' is larger than the 1 KB limit$/),
  );
  assert.deepEqual(await readdir(tmpDir), []);
});

test("a body that is not multipart is refused", async () => {
  await assert.rejects(
    parseMultipart(post(JSON.stringify({ prompt: "x" }), "application/json"), { maxFileBytes: MB }),
    isError("invalid_request", /multipart\/form-data/),
  );
  await assert.rejects(parseMultipart(post("x", "multipart/form-data"), { maxFileBytes: MB }), isError("invalid_request", /boundary/));
  await assert.rejects(
    parseMultipart(
      new Request("http://gateway.test/", { method: "POST", headers: { "content-type": "multipart/form-data; boundary=x" } }),
      {
        maxFileBytes: MB,
      },
    ),
    isError("invalid_request", /empty/),
  );
});

test("a malformed or truncated multipart body is refused and leaves no files behind", async () => {
  const tmpDir = await uploadDirectory();
  const truncated = `--b\r\nContent-Disposition: form-data; name="image[]"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nhalf a fi`;
  await assert.rejects(
    parseMultipart(post(truncated, "multipart/form-data; boundary=b"), { maxFileBytes: MB, tmpDir }),
    isError("invalid_request", /Malformed multipart\/form-data body/),
  );
  await assert.rejects(
    parseMultipart(post("--b\r\nthis is no header\r\n\r\n", "multipart/form-data; boundary=b"), { maxFileBytes: MB, tmpDir }),
    isError("invalid_request", /Malformed/),
  );
  assert.deepEqual(await readdir(tmpDir), []);
});

test("too many files and oversized fields are refused", async () => {
  const tmpDir = await uploadDirectory();
  const files = new FormData();
  for (let index = 0; index < 3; index += 1) files.append("image[]", new Blob(["x"]), `${index}.png`);
  await assert.rejects(parseMultipart(post(files), { maxFileBytes: MB, maxFiles: 2, tmpDir }), isError("invalid_request", /at most 2/));

  const fields = new FormData();
  fields.append("prompt", "x".repeat(2048));
  await assert.rejects(
    parseMultipart(post(fields), { maxFileBytes: MB, maxFieldBytes: 1024, tmpDir }),
    isError("body_too_large", /Field 'prompt' is larger than the 1 KB limit/),
  );
  assert.deepEqual(await readdir(tmpDir), []);
});

test("multipartBody quotes names so a header cannot be broken, with a fresh boundary each time", async () => {
  const relayed = multipartBody({ 'we"ird\r\nname': "value" }, []);
  const text = await new Response(relayed.body).text();
  assert.equal(Buffer.byteLength(text), relayed.contentLength);
  assert.match(text, /name="we%22ird%0D%0Aname"\r\n\r\nvalue\r\n/);
  assert.notEqual(multipartBody({}, []).contentType, relayed.contentType);
});

test("formatBytes writes limits as people do", () => {
  assert.equal(formatBytes(50 * MB), "50 MB");
  assert.equal(formatBytes(1.5 * MB), "1.5 MB");
  assert.equal(formatBytes(1024), "1 KB");
  assert.equal(formatBytes(1000), "1000 bytes");
});
