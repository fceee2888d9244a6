// A multipart request sent upstream while the client uploads it (docs/decisions/0015-edits-sent-while-uploaded.md),
// for the image edits and the audio API's transcriptions: the request is opened at once with a body of unknown length (chunked), the
// file part is written as it comes, and the text fields and the closing boundary only in finish(), once the gateway
// has checked the upload and reserved its cost. Until then the upstream holds an incomplete request it cannot act on
// (or bill). An answer, or a failure, before finish() means the channel has failed: the rest of the upload is read
// and dropped, and finish() reports it.
import { once } from "node:events";
import { PassThrough, type Readable } from "node:stream";
import { discardUpstreamBody, upstreamFetch, type FetchResult, type UpstreamInit } from "./http";
import { closingPart, FILE_PART_END, fieldPart, filePartHeader, multipartBoundary } from "@/lib/platform/http/multipart";
import type { UpstreamFailure } from "./types";

export type LiveMultipart = {
  /** Writes one file part; resolves when every byte was taken (or dropped, once the request has failed). */
  file(part: { field: string; filename: string; contentType: string }, head: Buffer, rest: AsyncIterable<Buffer>): Promise<void>;
  /** Writes the fields and the closing boundary and waits for the answer; the early failure instead, if any. */
  finish(fields: [string, string][]): Promise<FetchResult>;
  /** Drops the request unless finish() was called. */
  abort(): void;
};

export function openLiveMultipart(
  url: string,
  headers: Record<string, string>,
  options: { signal: AbortSignal; timeoutMs?: number; idleTimeoutMs?: number },
): LiveMultipart {
  const boundary = multipartBoundary();
  const body = new PassThrough({ highWaterMark: 1024 * 1024 });
  const stop = new AbortController();
  let finishing = false;
  let stopped = false;
  let early: FetchResult | null = null;
  let onStop: () => void = () => {};
  let uploaded: () => void = () => {};
  const deadlineFrom = new Promise<void>((resolve) => {
    uploaded = resolve;
  });
  const whenStopped = new Promise<void>((resolve) => {
    onStop = resolve;
  });
  const halt = () => {
    if (stopped) return;
    stopped = true;
    onStop();
  };
  const pending = upstreamFetch(
    url,
    {
      method: "POST",
      headers: { ...headers, "content-type": `multipart/form-data; boundary=${boundary}` },
      body: body as unknown as Readable,
      duplex: "half",
    } as UpstreamInit,
    // The deadline for the answer counts from the end of the upload, however slowly the client sends it.
    {
      signal: AbortSignal.any([options.signal, stop.signal]),
      timeoutMs: options.timeoutMs,
      idleTimeoutMs: options.idleTimeoutMs,
      deadlineFrom,
    },
  );
  pending.then(
    (result) => {
      if (finishing) return;
      early = result;
      if (result.ok) discardUpstreamBody(result.response);
      halt();
    },
    () => halt(),
  );
  const write = async (chunk: Buffer) => {
    if (stopped) return;
    if (!body.write(chunk)) await Promise.race([once(body, "drain").catch(() => undefined), whenStopped]);
  };
  return {
    async file(part, head, rest) {
      await write(filePartHeader(boundary, part.field, part.filename, part.contentType));
      await write(head);
      for await (const chunk of rest) await write(chunk);
      await write(FILE_PART_END);
    },
    async finish(fields) {
      finishing = !stopped;
      if (stopped) {
        const failed = early as FetchResult | null;
        if (failed && !failed.ok) return failed;
        return {
          ok: false,
          retryable: true,
          status: 502,
          message: "The upstream answered before the upload was complete",
          cause: "upstream_malformed",
        } satisfies UpstreamFailure;
      }
      for (const [name, value] of fields) body.write(fieldPart(boundary, name, value));
      body.end(closingPart(boundary));
      uploaded();
      return pending;
    },
    abort() {
      if (finishing) return;
      halt();
      stop.abort(new Error("The upload was not sent"));
      body.destroy();
    },
  };
}
