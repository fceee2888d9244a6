// Multipart uploads, streamed to disk and streamed on again (docs/decisions/0006-streams-never-buffered.md: a 50 MB image is never held
// whole in memory, let alone twice). Parsing uses busboy; the outgoing body is built by hand so its length is known.
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import busboy from "busboy";
import { GatewayError } from "@/lib/platform/errors";
import { useNativeBoundarySearch } from "./boundary-search";
import { listenToBody, nodeBodyOf } from "./node-adapter";

export interface UploadedFile {
  /** Form field name as sent, e.g. "image[]" or "mask". */
  field: string;
  filename: string;
  contentType: string;
  /** Temporary file holding the bytes; removed by cleanup(). */
  path: string;
  size: number;
}

export interface MultipartOptions {
  maxFileBytes: number;
  maxFiles?: number;
  /** Per text field; prompts can be long, so the default is generous. */
  maxFieldBytes?: number;
  maxFields?: number;
  tmpDir?: string;
  /**
   * Where each file's bytes go instead of a temporary file (the file's `path` is then empty unless `sinkKeepsCopies`):
   * resolves when it has taken them all, and sets the file's `size`. A GatewayError it throws refuses the upload with
   * that error; any other is answered as the gateway's own failure.
   */
  sink?: (file: UploadedFile, stream: Readable, fieldsSoFar: Readonly<Record<string, string>>) => Promise<void>;
  /** With a sink: give each file a `path` in the temporary directory anyway, for the sink to keep a copy there. */
  sinkKeepsCopies?: boolean;
}

export interface ParsedMultipart {
  /** Text fields; when a name repeats, the last value wins. */
  fields: Record<string, string>;
  /** Every value of each field whose name ends in `[]` (`timestamp_granularities[]`), in the order sent. */
  lists: Record<string, string[]>;
  files: UploadedFile[];
  /** Deletes the temporary files. Call it when the request is done, whatever happened. */
  cleanup(): Promise<void>;
}

const DEFAULT_MAX_FILES = 16;
const PARSER_BUFFER_BYTES = 512 * 1024;
const DEFAULT_MAX_FIELD_BYTES = 1024 * 1024;
const DEFAULT_MAX_FIELDS = 100;

/** "50 MB" for 50 × 1024², "512 KB", or plain bytes: the limit as a person would write it. */
export function formatBytes(bytes: number): string {
  const megabytes = bytes / (1024 * 1024);
  if (megabytes >= 1) return `${Number.isInteger(megabytes) ? megabytes : megabytes.toFixed(1)} MB`;
  const kilobytes = bytes / 1024;
  if (kilobytes >= 1) return `${Number.isInteger(kilobytes) ? kilobytes : kilobytes.toFixed(1)} KB`;
  return `${bytes} bytes`;
}

/**
 * Parses a multipart/form-data request, writing each file to a temporary file as it arrives. A file over
 * maxFileBytes stops the upload at once: the rest of the body is not read, temporary files are deleted and
 * GatewayError("file_too_large") is thrown.
 */
export async function parseMultipart(request: Request, options: MultipartOptions): Promise<ParsedMultipart> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(contentType) || !/boundary=/i.test(contentType)) {
    throw new GatewayError(
      "invalid_request",
      "Expected a multipart/form-data body with a boundary (Content-Type: multipart/form-data; boundary=...).",
    );
  }

  const maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
  const maxFieldBytes = options.maxFieldBytes ?? DEFAULT_MAX_FIELD_BYTES;
  const maxFields = options.maxFields ?? DEFAULT_MAX_FIELDS;

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      // Filenames from browsers and SDKs are UTF-8; busboy's default (latin1) would garble them.
      defParamCharset: "utf8",
      // Room for a few socket reads (64 KB each) before the parser, or a file's consumer, asks the sender to wait;
      // with the defaults (16 KB) every read was a pause and a resume.
      highWaterMark: PARSER_BUFFER_BYTES,
      fileHwm: PARSER_BUFFER_BYTES,
      // busboy reports a limit on reaching it, not on passing it: one byte more lets a file of exactly the limit through.
      limits: { fileSize: options.maxFileBytes + 1, files: maxFiles, fieldSize: maxFieldBytes + 1, fields: maxFields },
    });
    useNativeBoundarySearch(parser);
  } catch (error) {
    throw new GatewayError(
      "invalid_request",
      `Malformed multipart/form-data header: ${error instanceof Error ? error.message : "unreadable"}.`,
    );
  }

  // The production server's body is read off node:http's stream; any other Request through its Web stream (asking
  // for `request.body` first would make the production server's request build that stream).
  const node = nodeBodyOf(request);
  const web = node ? null : request.body;
  if (!node && !web) throw new GatewayError("invalid_request", "The request body is empty; expected a multipart/form-data body.");
  const reader = web ? web.getReader() : null;
  const sink = options.sink;
  const directory = sink && !options.sinkKeepsCopies ? "" : await mkdtemp(join(options.tmpDir ?? tmpdir(), "gateway-upload-"));
  const cleanup = () => (directory ? rm(directory, { recursive: true, force: true }) : Promise.resolve());
  const fields: Record<string, string> = {};
  const lists: Record<string, string[]> = {};
  const files: UploadedFile[] = [];
  const writes: Promise<void>[] = [];
  const writers = new Set<WriteStream>();
  const fileStreams = new Set<Readable>();
  const stopped = new AbortController();

  return new Promise<ParsedMultipart>((resolve, reject) => {
    let settled = false;
    let stopFeeding = () => {};

    const fail = (error: GatewayError) => {
      if (settled) return;
      settled = true;
      stopped.abort();
      // Stop pulling the body: for an oversized file, the point is not to read the remaining megabytes.
      stopFeeding();
      parser.removeAllListeners("file");
      parser.removeAllListeners("field");
      parser.on("error", () => {});
      parser.destroy();
      for (const writer of writers) writer.destroy();
      // A sink reading a file stream gets an error and returns.
      for (const stream of fileStreams) stream.destroy();
      // Writers must be closed before the directory goes, or a late write could recreate a file in it.
      Promise.allSettled(writes)
        .then(cleanup)
        .then(
          () => reject(error),
          () => reject(error),
        );
    };

    parser.on("file", (field: string, stream: Readable & { truncated?: boolean }, info: busboy.FileInfo) => {
      const path = directory ? join(directory, String(files.length)) : "";
      const file: UploadedFile = { field, filename: info.filename ?? "", contentType: info.mimeType, path, size: 0 };
      files.push(file);
      stream.on("limit", () => {
        fail(
          new GatewayError("file_too_large", `File for field '${field}' is larger than the ${formatBytes(options.maxFileBytes)} limit`, {
            param: field,
          }),
        );
      });
      if (sink) {
        fileStreams.add(stream);
        writes.push(
          sink(file, stream, fields).catch((error: unknown) => {
            stream.resume();
            if (!settled)
              fail(
                error instanceof GatewayError
                  ? error
                  : new GatewayError("internal_error", "The gateway could not relay the upload. Please try again."),
              );
          }),
        );
        return;
      }
      const writer = createWriteStream(path, { highWaterMark: READ_CHUNK_BYTES });
      writers.add(writer);
      writes.push(
        pipeline(stream, writer).then(
          () => {
            writers.delete(writer);
            file.size = writer.bytesWritten;
          },
          () => {
            writers.delete(writer);
            // A disk problem is ours, not the client's: a generic 500, never the file system's message.
            if (!settled) fail(new GatewayError("internal_error", "The gateway could not store the upload. Please try again."));
          },
        ),
      );
    });

    parser.on("field", (name: string, value: string, info: busboy.FieldInfo) => {
      if (info.valueTruncated) {
        fail(new GatewayError("body_too_large", `Field '${name}' is larger than the ${formatBytes(maxFieldBytes)} limit`, { param: name }));
        return;
      }
      fields[name] = value;
      if (name.endsWith("[]")) (lists[name] ??= []).push(value);
    });

    parser.on("filesLimit", () => fail(new GatewayError("invalid_request", `Too many files: at most ${maxFiles} per request.`)));
    parser.on("fieldsLimit", () => fail(new GatewayError("invalid_request", `Too many form fields: at most ${maxFields} per request.`)));
    parser.on("error", (error: unknown) => {
      fail(
        new GatewayError(
          "invalid_request",
          `Malformed multipart/form-data body: ${error instanceof Error ? error.message : "unreadable"}.`,
        ),
      );
    });

    parser.on("close", () => {
      // busboy is done with the body, but the last bytes may still be on their way to disk.
      Promise.all(writes).then(
        () => {
          if (settled) return;
          settled = true;
          resolve({ fields, lists, files, cleanup });
        },
        () => {},
      );
    });

    const interrupted = () =>
      fail(new GatewayError("invalid_request", "The upload was interrupted before the multipart body was complete."));
    if (node) {
      const source = node.stream;
      const resume = () => source.resume();
      const stop = listenToBody(source, {
        data: (chunk) => {
          if (settled) return;
          let more: boolean;
          try {
            more = parser.write(chunk);
          } catch {
            // busboy throws when a listener has destroyed it in the middle of a write (the 'limit' that refuses a
            // file does): the parse has been settled already. Anything else is a body it could not take.
            return fail(new GatewayError("invalid_request", "Malformed multipart/form-data body."));
          }
          if (!more) {
            source.pause();
            parser.once("drain", resume);
          }
        },
        end: () => {
          try {
            if (!settled) parser.end();
          } catch {
            fail(new GatewayError("invalid_request", "Malformed multipart/form-data body."));
          }
        },
        fail: interrupted,
      });
      stopFeeding = () => {
        stop();
        parser.off("drain", resume);
        node.cancel();
      };
      return;
    }
    const pump = async () => {
      try {
        while (!settled) {
          const { done, value } = await reader!.read();
          if (done || settled) break;
          if (!parser.write(value)) await drained(parser, stopped.signal);
        }
        if (!settled) parser.end();
      } catch {
        interrupted();
      }
    };
    stopFeeding = () => void reader!.cancel().catch(() => {});
    void pump();
  });
}

/** Resolves when busboy wants more input or the parse was abandoned, whichever comes first. */
function drained(parser: busboy.Busboy, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      parser.off("drain", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    parser.on("drain", done);
    signal.addEventListener("abort", done);
  });
}

export interface MultipartBody {
  body: ReadableStream<Uint8Array>;
  /** The same body as a Node stream, which undici sends as it is (no Web stream in between); use one or the other. */
  nodeStream(): Readable;
  contentType: string;
  contentLength: number;
}

/** Uploads are read back from disk in pieces this large (the default 64 KB made ~700 reads of a 42 MB edit). */
const READ_CHUNK_BYTES = 1024 * 1024;

export type OutgoingFile = Pick<UploadedFile, "field" | "filename" | "contentType" | "path" | "size">;

/** Quoting as browsers do (WHATWG HTML form encoding): a quote or line break cannot end the header early. */
function quoteParameter(value: string): string {
  return value.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

const CRLF = Buffer.from("\r\n");

/** A boundary no upload can contain by chance. */
export function multipartBoundary(): string {
  return `----gateway-${randomBytes(16).toString("hex")}`;
}

/** One text field, whole. */
export function fieldPart(boundary: string, name: string, value: string): Buffer {
  return Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoteParameter(name)}"\r\n\r\n${value}\r\n`);
}

/** What goes before a file's bytes; the bytes are followed by FILE_PART_END. */
export function filePartHeader(boundary: string, field: string, filename: string, contentType: string): Buffer {
  return Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${quoteParameter(field)}"; filename="${quoteParameter(filename)}"\r\n` +
      `Content-Type: ${contentType.replace(/[\r\n]/g, "") || "application/octet-stream"}\r\n\r\n`,
  );
}

export const FILE_PART_END = CRLF;

/** The end of the body. */
export function closingPart(boundary: string): Buffer {
  return Buffer.from(`--${boundary}--\r\n`);
}

/**
 * A multipart/form-data body for relaying an upload upstream: files are read from disk as the body is pulled, so
 * nothing is buffered, and Content-Length is known in advance from the file sizes. Send it with `duplex: "half"`.
 */
export function multipartBody(fields: Record<string, string>, files: OutgoingFile[]): MultipartBody {
  const boundary = multipartBoundary();
  const fieldParts = Object.entries(fields).map(([name, value]) => fieldPart(boundary, name, value));
  const fileHeaders = files.map((file) => filePartHeader(boundary, file.field, file.filename, file.contentType));
  const closing = closingPart(boundary);
  const contentLength =
    fieldParts.reduce((total, part) => total + part.length, 0) +
    fileHeaders.reduce((total, header, index) => total + header.length + files[index]!.size + CRLF.length, 0) +
    closing.length;

  async function* chunks(): AsyncGenerator<Uint8Array> {
    yield* fieldParts;
    for (const [index, file] of files.entries()) {
      yield fileHeaders[index]!;
      // Read exactly the announced size, so the body always matches Content-Length.
      if (file.size > 0) yield* createReadStream(file.path, { start: 0, end: file.size - 1, highWaterMark: READ_CHUNK_BYTES });
      yield CRLF;
    }
    yield closing;
  }

  const iterator = chunks();
  // Made when asked for: a ReadableStream pulls its first chunk as soon as it exists, which the Node stream would miss.
  let web: ReadableStream<Uint8Array> | null = null;
  return {
    get body() {
      web ??= new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await iterator.next();
          if (next.done) controller.close();
          else controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
        },
        async cancel() {
          // Closes the file being read when the upstream request is aborted.
          await iterator.return(undefined);
        },
      });
      return web;
    },
    nodeStream: () => Readable.from(iterator, { objectMode: false, highWaterMark: READ_CHUNK_BYTES }),
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength,
  };
}
