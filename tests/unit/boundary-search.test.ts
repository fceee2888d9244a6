import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import busboy from "busboy";
import { BoundarySearch, useNativeBoundarySearch } from "@/lib/platform/http/boundary-search";
// Seeded, so that a failure can be replayed.
import { mulberry32 } from "@/lib/platform/random";

// busboy's own search, the reference the native one must agree with byte for byte.
const StreamSearch = createRequire(import.meta.url)("streamsearch") as new (
  needle: Buffer,
  callback: (isMatch: boolean, data: Buffer | undefined, start: number, end: number) => void,
) => { push(chunk: Buffer, pos?: number): number; destroy(): void };

/** Body bytes made to trip a search: boundaries, their beginnings, "\r\n--" runs, and bytes of the boundary's alphabet. */
function trickyBody(next: () => number, needle: Buffer, length: number): Buffer {
  const pieces: Buffer[] = [];
  let size = 0;
  while (size < length) {
    const kind = next();
    let piece: Buffer;
    if (kind < 0.08) piece = needle;
    else if (kind < 0.3) piece = needle.subarray(0, 1 + Math.floor(next() * (needle.length - 1)));
    else if (kind < 0.4) piece = Buffer.from("\r\n--\r\r\n-");
    else {
      piece = Buffer.alloc(1 + Math.floor(next() * 64));
      for (let i = 0; i < piece.length; i++)
        piece[i] = next() < 0.5 ? needle[Math.floor(next() * needle.length)]! : Math.floor(next() * 256);
    }
    pieces.push(piece);
    size += piece.length;
  }
  return Buffer.concat(pieces);
}

/** What a search reports: the body between boundaries, as text with a marker for each boundary. */
function transcript(search: { push(chunk: Buffer, pos?: number): number; destroy(): void }, chunks: Buffer[], out: string[]): string {
  for (const chunk of chunks) search.push(chunk, 0);
  search.destroy();
  return out.join("");
}

function recorder(): { out: string[]; callback: (isMatch: boolean, data: Buffer | undefined, start: number, end: number) => void } {
  const out: string[] = [];
  return {
    out,
    callback: (isMatch, data, start, end) => {
      if (data && end > start) out.push(data.toString("latin1", start, end));
      if (isMatch) out.push("<BOUNDARY>");
    },
  };
}

function split(next: () => number, body: Buffer, maxChunk: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.length; ) {
    const size = Math.min(body.length - at, 1 + Math.floor(next() * maxChunk));
    // Each chunk in its own memory, as socket reads arrive: the search must not rely on the chunks being contiguous.
    chunks.push(Buffer.from(body.subarray(at, at + size)));
    at += size;
  }
  return chunks;
}

test("the native boundary search reports exactly what busboy's own search reports, however the body is cut", () => {
  for (let seed = 1; seed <= 400; seed++) {
    const next = mulberry32(seed);
    const needle = Buffer.from(`\r\n--${seed % 3 === 0 ? "x" : `----formdata-${seed.toString(16).padStart(8, "0")}`}`);
    const body = trickyBody(next, needle, 200 + Math.floor(next() * 4000));
    const maxChunk = [1, 3, needle.length - 1, needle.length, needle.length + 1, 64, 5000][seed % 7]!;
    const chunks = split(next, body, maxChunk);
    const expected = recorder();
    const actual = recorder();
    const reference = transcript(new StreamSearch(needle, expected.callback), chunks, expected.out);
    const native = transcript(new BoundarySearch(needle, actual.callback), chunks, actual.out);
    assert.equal(native, reference, `seed ${seed}, chunks of at most ${maxChunk} bytes`);
  }
});

test("a boundary split across three chunks, and one at the very start and end of the body, are all found", () => {
  const needle = Buffer.from("\r\n--boundary");
  const { out, callback } = recorder();
  const search = new BoundarySearch(needle, callback);
  for (const part of ["\r\n--boundaryAB\r\n-", "-boun", "dar", "yCD\r\n--bo", "undary"]) search.push(Buffer.from(part));
  search.destroy();
  assert.equal(out.join(""), "<BOUNDARY>AB<BOUNDARY>CD<BOUNDARY>");
});

/** Parses a multipart body with busboy, fed in the given chunks; with or without the native search. */
function parse(body: Buffer, boundary: string, chunks: number[], native: boolean): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const parser = busboy({ headers: { "content-type": `multipart/form-data; boundary=${boundary}` } });
    if (native) assert.equal(useNativeBoundarySearch(parser), true, "busboy no longer has the search this module replaces");
    const seen: string[] = [];
    parser.on("field", (name, value) => seen.push(`field ${name}=${value}`));
    parser.on("file", (name, stream, info) => {
      const parts: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => parts.push(chunk));
      stream.on("end", () => seen.push(`file ${name} ${info.filename} ${info.mimeType} ${Buffer.concat(parts).toString("base64")}`));
    });
    parser.on("error", reject);
    parser.on("close", () => resolve(seen));
    let at = 0;
    for (const size of chunks) {
      parser.write(body.subarray(at, at + size));
      at += size;
    }
    parser.end(body.subarray(at));
  });
}

test("busboy with the native search parses fields and files as it does without, including bytes that look like boundaries", async () => {
  const boundary = "----formdata-undici-0123456789";
  const next = mulberry32(7);
  const image = trickyBody(next, Buffer.from(`\r\n--${boundary}`).subarray(0, 20), 300_000);
  const body = Buffer.concat([
    Buffer.from(`preamble\r\n--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nA cat --${boundary.slice(0, 10)}\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image[]"; filename="cat.png"\r\nContent-Type: image/png\r\n\r\n`),
    image,
    Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nstd-image-2\r\n--${boundary}--\r\n`),
  ]);
  const expected = await parse(body, boundary, [body.length], false);
  assert.equal(expected.length, 3);
  for (const chunkSize of [1, 7, 41, 4096, 65536]) {
    const chunks = Array.from({ length: Math.floor(body.length / chunkSize) }, () => chunkSize);
    assert.deepEqual(await parse(body, boundary, chunks, true), expected, `chunks of ${chunkSize} bytes`);
  }
});
