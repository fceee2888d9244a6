// The body of a /v1 request that is read whole before the work starts (chat, messages, count_tokens, responses,
// embeddings, Gemini's API), from the socket to a validated object and its input count
// (docs/decisions/0018-large-bodies-off-the-event-loop.md): money before work first (lib/money/body-funds.ts), then,
// for a small body, the steps at once; for a large one, the parse, the validation and the count run on a worker
// (lib/gateway/text-request-worker.ts) while the event loop parses the same bytes in slices
// (lib/platform/http/sliced-json.ts) into the object that is relayed. No step holds the event loop for more than a
// few milliseconds at a time, and a small body pays nothing for it.
//
// What the steps are is the endpoint's own: each declares its body kind (defineBodyKind) in its folder, in a module a
// worker can load (schemas and counts; no handler, no database), so a new endpoint adds its kind there and nothing here.
import { GatewayError, type ErrorCode } from "@/lib/platform/errors";
import { JSON_LIMIT_BYTES, MAX_JSON_DEPTH, parseJsonObject } from "@/lib/platform/http/json";
import { joinInSlices, readWatchedBody, type BodyWatch } from "@/lib/platform/http/watched-body";
import { parseJsonInSlices } from "@/lib/platform/http/sliced-json";
import { WorkerPool, WorkerUnavailable } from "@/lib/platform/worker-pool";
import { singleton } from "@/lib/platform/singleton";
import { log } from "@/lib/platform/log";
import type { CountStats } from "@/lib/money/tokens";

/**
 * From this size on, a body is prepared on a worker. What the steps cost on the event loop depends on the text more
 * than on the size (measured here, parse + schema + the reservation's count): short messages of varied English 1.0 ms
 * at 16 KB, 5.0 ms at 62 KB, 13 ms at 187 KB; short CJK messages (every one counted whole, at ~3.5 µs a character)
 * 4.6, 17 and 61 ms; one long text under 1 ms at any size. 16 KB keeps the worst of them to a few milliseconds
 * (docs/decisions/0018-large-bodies-off-the-event-loop.md); a chat request of a few turns stays below it.
 */
export const OFFLOAD_BYTES = 16 * 1024;

/**
 * What the handlers need of a body besides the body: its input count, what the count saw, and the model; for
 * /v1/responses also whether it asks for the image tool, and the size of what the reservation's size bound reads (the
 * chat request it becomes, or the request without its images).
 */
export type Prepared = {
  inputTokens: number;
  stats: CountStats;
  model: string;
  imageTool?: boolean;
  sizeBytes?: number;
  /** The embeddings endpoints: each input's tokens (lib/gateway/embeddings/request.ts). */
  inputCounts?: number[];
};

/** What a worker answers: the preparation, or the 400 the body gets. */
export type PrepareAnswer = Prepared | { error: { code: ErrorCode; message: string; param: string | null } };

/**
 * The steps an endpoint runs on a parsed body: the schema, and the count (for a reservation with its budget,
 * lib/money/tokens.ts; count_tokens' exact, without). Throws the GatewayError a bad body gets. The event loop runs it
 * for small bodies, the workers for large ones; there (`whole`) the exact count of every text that a charge without
 * the upstream's usage needs (countForCharge) is made too when the budget's count is not it, so that it never runs
 * on the event loop (a provider may ask for it even when the upstream reported usage).
 */
export type PrepareBody = (raw: Record<string, unknown>, whole: boolean) => Omit<ReadTextRequest, "bytes">;

/** An endpoint's body: how to prepare it, and where a worker finds it (the module that exports it, by name). */
export type BodyKind = { readonly module: string; readonly name: string; readonly prepare: PrepareBody };

/**
 * Declares a body kind. `module` is the declaring module's `import.meta.url` and `name` the name it exports the kind
 * under: a worker imports that module to run the same steps. The module must be light (schemas, counts,
 * conversions): a worker loads it, and with it everything it imports.
 */
export function defineBodyKind(module: string, name: string, prepare: PrepareBody): BodyKind {
  return { module, name, prepare };
}

/** A kind as a worker is told it: where to import it from. */
export type BodyKindAddress = { module: string; name: string };

/** The kind a worker was sent, imported once per module. */
const loaded = new Map<string, Promise<Record<string, unknown>>>();
export async function loadBodyKind(address: BodyKindAddress): Promise<BodyKind> {
  let module = loaded.get(address.module);
  if (!module) {
    module = import(address.module) as Promise<Record<string, unknown>>;
    loaded.set(address.module, module);
  }
  const kind = (await module)[address.name] as BodyKind | undefined;
  if (!kind || typeof kind.prepare !== "function") throw new Error(`${address.module} exports no body kind named ${address.name}`);
  return kind;
}

/** A worker's job: the whole body's bytes, parsed, validated and counted; a bad body's error as data. */
export function prepareBytes(kind: BodyKind, bytes: Uint8Array): PrepareAnswer {
  try {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
    // Everything but the body, which stays here (the event loop makes its own: see readTextRequest).
    const { body: _body, ...prepared } = kind.prepare(parseJsonObject(text), true);
    return prepared;
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return { error: { code: error.code, message: error.message, param: error.param } };
  }
}

/**
 * The worker's file beside this one, or null where this module was bundled (Next.js serving /v1 through app/): the
 * bundle has no such file, and a URL written as `new URL(literal, import.meta.url)` would have the bundler copy the
 * TypeScript source as an asset.
 */
function workerFile(): URL | null {
  const here = import.meta.url;
  return here.endsWith("/text-request.ts") ? new URL("./text-request-worker.ts", here) : null;
}

function bodyWorkers(): WorkerPool {
  return singleton("gateway.body-workers", () => new WorkerPool(workerFile()));
}

/** The workers' answer for these bytes, or the same steps in process where no worker can start (`next dev`). */
async function prepareElsewhere(kind: BodyKind, bytes: Uint8Array): Promise<PrepareAnswer> {
  try {
    return await bodyWorkers().run<PrepareAnswer>({ kind: { module: kind.module, name: kind.name } satisfies BodyKindAddress, bytes });
  } catch (error) {
    if (!(error instanceof WorkerUnavailable)) throw error;
    log.warn("body workers unavailable; large bodies are prepared on the event loop", { error: error.message });
    return prepareBytes(kind, bytes);
  }
}

function refusalOf(answer: PrepareAnswer): GatewayError | null {
  if (!("error" in answer)) return null;
  return new GatewayError(answer.error.code, answer.error.message, { param: answer.error.param });
}

/** The body, what the handlers need of it, and its size as it arrived (the reservation's size bound reads it rather
 *  than serialising a large body again). */
export type ReadTextRequest = { body: Record<string, unknown>; bytes: number } & Prepared;

/**
 * Reads, validates and counts the request's body for `kind`, at most `limit` bytes, watched by `watch` (money before
 * work; null for count_tokens, which is free). The body is not needed for count_tokens (`withBody: false`).
 */
export async function readTextRequest(
  request: Request,
  kind: BodyKind,
  options: { watch: BodyWatch | null; limit?: number; withBody?: boolean },
): Promise<ReadTextRequest> {
  const read = await readWatchedBody(request, options.limit ?? JSON_LIMIT_BYTES, options.watch);
  if (read.length < OFFLOAD_BYTES) {
    const text = read.chunks.length === 1 ? read.chunks[0]!.toString("utf8") : Buffer.concat(read.chunks, read.length).toString("utf8");
    return { ...kind.prepare(parseJsonObject(text), false), bytes: read.length };
  }
  const bytes = await joinInSlices(read, true);
  if (options.withBody === false) {
    const answer = await prepareElsewhere(kind, bytes);
    const refusal = refusalOf(answer);
    if (refusal) throw refusal;
    return { body: {}, bytes: read.length, ...(answer as Prepared) };
  }
  // Both at once: the worker decides whether the body is good; the slices give the event loop its own object (an
  // object made on a worker would have to be copied back, and that copy runs on the event loop).
  const [answer, parsed] = await Promise.allSettled([
    prepareElsewhere(kind, bytes),
    parseJsonInSlices(bytes, { maxDepth: MAX_JSON_DEPTH + 1 }),
  ]);
  if (answer.status === "rejected") throw answer.reason;
  const refusal = refusalOf(answer.value);
  if (refusal) throw refusal;
  if (parsed.status === "rejected") {
    // The worker read these bytes as a good body: the slices must have too.
    log.error("a body the worker accepted could not be parsed in slices", { error: parsed.reason });
    throw new GatewayError("invalid_json", "Request body is not valid JSON");
  }
  return { body: parsed.value as Record<string, unknown>, bytes: read.length, ...(answer.value as Prepared) };
}
