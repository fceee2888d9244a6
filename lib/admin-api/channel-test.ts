// POST /api/admin/channels/{id}/test: one tiny real request through the channel's own adapter, so an operator can
// see at a click whether the upstream answers, how fast, and what it said when it did not. Nothing is billed and the
// channel is left as it is (also when the upstream refuses its key: the operator decides what to do about that).
// Disabled channels can be tested too: that is how an operator checks a channel before switching it back on. The
// answer also names the channel's models that have no price: the upstream may answer, but users cannot call them.
import { db } from "@/lib/platform/db/client";
import { env } from "@/lib/platform/env";
import { GatewayError } from "@/lib/platform/errors";
import { decrypt } from "@/lib/platform/crypto";
import { z } from "zod";
import { json, readBody } from "@/lib/platform/http/json";
import { log } from "@/lib/platform/log";
import { splitLongContext } from "@/lib/catalog/models";
import { upstreamModel, type Channel, type ChannelType } from "@/lib/channels";
import { providerOf } from "@/lib/providers";
import { IMAGE_MODELS, parseImageOptions } from "@/lib/wire/image-request";
import { imageUsage } from "@/lib/money/image-usage";
import type { Outcome, UpstreamFailure } from "@/lib/providers/types";
import type { ImageOutcome } from "@/lib/providers/image-types";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { catalogEntryOrGeneric } from "@/lib/catalog";
import { parseSpeechOptions, parseTranscriptionOptions } from "@/lib/wire/audio-request";
import { noEmbeddingsApi } from "@/lib/providers/embeddings-types";
import { adminRoute } from "./route";

const TEST_SPEECH = "pong";

/** Speech: a one-word WAV, read to its end. */
async function testSpeech(channel: Channel, model: string, signal: AbortSignal): Promise<{ status: number; error?: string }> {
  const adapter = providerOf(channel.type).speech;
  if (!adapter) return { status: 501, error: `A '${channel.type}' channel has no speech API` };
  const options = parseSpeechOptions({ model, input: TEST_SPEECH, voice: "alloy", response_format: "wav" });
  const outcome = await adapter.speak({
    channel,
    publicModel: model,
    upstreamModel: upstreamModel(channel, model, model),
    options,
    signal,
  });
  if (!outcome.ok) return describeFailure(outcome);
  for await (const _chunk of outcome.chunks);
  return { status: 200 };
}

/** Transcription: one second of silence as a WAV file (24 kHz, 16-bit mono). */
async function testTranscription(channel: Channel, model: string, signal: AbortSignal): Promise<{ status: number; error?: string }> {
  const adapter = providerOf(channel.type).transcription;
  if (!adapter) return { status: 501, error: `A '${channel.type}' channel has no transcription API` };
  const samples = 24_000;
  const header = Buffer.alloc(44);
  header.write("RIFF", 0);
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write("WAVEfmt ", 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(24_000, 24);
  header.writeUInt32LE(48_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36);
  header.writeUInt32LE(samples * 2, 40);
  const folder = await mkdtemp(path.join(tmpdir(), "channel-test-"));
  const file = path.join(folder, "test.wav");
  try {
    await writeFile(file, Buffer.concat([header, Buffer.alloc(samples * 2)]));
    const outcome = await adapter.transcribe({
      channel,
      publicModel: model,
      upstreamModel: upstreamModel(channel, model, model),
      options: parseTranscriptionOptions({ model }, {}),
      file: {
        field: "file",
        filename: "test.wav",
        path: file,
        size: 44 + samples * 2,
        info: { format: "wav", mimeType: "audio/wav", duration: 1 },
      },
      signal,
    });
    return outcome.ok ? { status: 200 } : describeFailure(outcome);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** A model the catalog says is neither text nor image: tested through its own endpoint's adapter. */
async function testOtherKind(
  channel: Channel,
  model: string,
  kind: "embedding" | "speech" | "transcription",
  signal: AbortSignal,
): Promise<{ status: number; error?: string } | null> {
  if (kind === "speech") return testSpeech(channel, model, signal);
  if (kind === "transcription") return testTranscription(channel, model, signal);
  const adapter = providerOf(channel.type).embeddings ?? noEmbeddingsApi(channel.type);
  const outcome = await adapter({
    channel,
    publicModel: model,
    upstreamModel: upstreamModel(channel, model, model),
    input: { kind: "text", texts: ["ping"] },
    dimensions: undefined,
    size: null,
    modelSize: null,
    user: undefined,
    inputCounts: [1],
    inputTokens: 1,
    bodyBytes: 64,
    signal,
  });
  return outcome.ok ? { status: 200 } : describeFailure(outcome);
}

/** A test that has not answered by then is reported as a timeout. */
export const CHANNEL_TEST_TIMEOUT_MS = 30_000;
const TEST_PROMPT = "Reply with the single word: pong";
const TEST_IMAGE_PROMPT = "Connection test: a plain grey square";

export type ChannelTestResult = {
  ok: boolean;
  latencyMs: number;
  /** The upstream's HTTP status (or the gateway's status for a failure before any answer). */
  status: number;
  /** Which model and endpoint the test used. */
  model: string;
  kind: "chat" | "messages" | "image" | "embedding" | "speech" | "transcription";
  error?: string;
};

function channelFromRow(row: {
  id: string;
  name: string;
  type: string;
  baseUrl: string;
  apiKey: string;
  models: unknown;
  modelMapping: unknown;
  settings: unknown;
  priority: number;
  weight: number;
}): Channel {
  return {
    id: row.id,
    name: row.name,
    type: row.type as ChannelType,
    baseUrl: row.baseUrl,
    apiKey: row.apiKey ? decrypt(row.apiKey, env().secret) : "",
    models: new Set(row.models as string[]),
    modelMapping: (row.modelMapping ?? {}) as Record<string, string>,
    settings: (row.settings ?? {}) as Record<string, unknown>,
    priority: row.priority,
    weight: row.weight,
  };
}

/**
 * What the operator should see of a failure: the upstream's own status when it answered (the adapters report
 * 502 for a refused key and keep the upstream's status in `cause`), and its words, which `disable` carries for a
 * refused key.
 */
function describeFailure(failure: UpstreamFailure): { status: number; error: string } {
  const upstream = /^upstream_(\d{3})$/.exec(failure.cause);
  return {
    status: upstream ? Number(upstream[1]) : failure.status,
    error: failure.disable ? `${failure.disable} (${failure.message.replace(/^The /, "the ")})` : failure.message,
  };
}

/** Reads a successful answer to the end (a test's latency includes the whole body) and reports its status. */
async function drain(response: Response): Promise<{ status: number; error?: string }> {
  const text = await response.text();
  if (response.ok) return { status: response.status };
  return { status: response.status, error: text.slice(0, 500) || `HTTP ${response.status}` };
}

/** An optional body {model}: test that model of the channel (the portal's "test every model" asks one by one). */
export const testSchema = z.object({ model: z.string().trim().min(1).max(200).optional() });

export const testChannel = adminRoute(async (request, params) => {
  const row = await db().channel.findUnique({ where: { id: params.id } });
  if (!row) throw new GatewayError("not_found", "No channel with this id");
  const channel = channelFromRow(row);
  const models = [...channel.models];
  const declared = Number(request.headers.get("content-length") ?? "0");
  const requested = declared > 0 ? (await readBody(request, testSchema)).model : undefined;
  if (requested && !channel.models.has(requested)) {
    throw new GatewayError("invalid_request", `This channel does not serve '${requested}'; it serves ${models.join(", ")}`, {
      param: "model",
    });
  }
  // The model asked for; else a text model when the channel serves one (cheapest to ask), else its image model at the
  // lowest quality.
  const textModel = requested ? (IMAGE_MODELS.has(requested) ? undefined : requested) : models.find((model) => !IMAGE_MODELS.has(model));
  const imageModel = requested ? (IMAGE_MODELS.has(requested) ? requested : undefined) : models.find((model) => IMAGE_MODELS.has(model));
  if (!textModel && !imageModel) throw new GatewayError("invalid_request", "This channel serves no model to test", { param: "models" });

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("timeout")), CHANNEL_TEST_TIMEOUT_MS);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let result: ChannelTestResult;
  let kind: "chat" | "messages" = "chat";
  const other = textModel ? (await catalogEntryOrGeneric(textModel)).kind : "text";
  try {
    if (textModel && (other === "embedding" || other === "speech" || other === "transcription")) {
      const tested = await testOtherKind(channel, textModel, other, controller.signal);
      result = tested
        ? { ok: !tested.error, latencyMs: elapsed(), model: textModel, kind: other, ...tested }
        : { ok: false, latencyMs: elapsed(), status: 501, model: textModel, kind: other, error: `No test for ${other} models yet` };
    } else if (textModel) {
      const { base, longContext } = splitLongContext(textModel);
      // A vendor dialect of its own (Gemini, Converse) is asked through Chat Completions, as clients reach it.
      kind = providerOf(channel.type).nativeText(upstreamModel(channel, textModel, base)) === "messages" ? "messages" : "chat";
      // The same body reads as a Chat Completions and as a Messages request.
      const body = { model: textModel, max_tokens: 16, messages: [{ role: "user", content: TEST_PROMPT }] };
      const outcome: Outcome = await providerOf(channel.type).text[kind]({
        channel,
        publicModel: textModel,
        upstreamModel: upstreamModel(channel, textModel, base),
        longContext,
        body,
        stream: false,
        outputCap: body.max_tokens,
        bodyBytes: 256,
        includeUsage: false,
        headers: new Headers(),
        signal: controller.signal,
        inputTokens: 16,
      });
      if (outcome.ok) {
        const drained = await drain(outcome.response);
        result = {
          ok: !drained.error,
          latencyMs: elapsed(),
          status: drained.status,
          model: textModel,
          kind,
          ...(drained.error ? { error: drained.error } : {}),
        };
      } else {
        result = { ok: false, latencyMs: elapsed(), model: textModel, kind, ...describeFailure(outcome) };
      }
    } else {
      const model = imageModel!;
      const options = parseImageOptions({ model, prompt: TEST_IMAGE_PROMPT, size: "1024x1024", quality: "low" });
      const outcome: ImageOutcome = await providerOf(channel.type).images.generate({
        channel,
        publicModel: model,
        upstreamModel: upstreamModel(channel, model, model),
        options,
        width: 1024,
        height: 1024,
        images: [],
        mask: undefined,
        usage: imageUsage({ prompt: TEST_IMAGE_PROMPT, width: 1024, height: 1024, quality: "low" }),
        signal: controller.signal,
      });
      result = outcome.ok
        ? { ok: true, latencyMs: elapsed(), status: 200, model, kind: "image" }
        : { ok: false, latencyMs: elapsed(), model, kind: "image", ...describeFailure(outcome) };
    }
  } catch (error) {
    const timedOut = controller.signal.aborted;
    if (!timedOut) log.warn("channel test failed", { channel: channel.name, channelId: channel.id, error });
    result = {
      ok: false,
      latencyMs: elapsed(),
      status: timedOut ? 504 : 502,
      model: (textModel ?? imageModel)!,
      kind: textModel ? kind : "image",
      error: timedOut
        ? `No answer within ${CHANNEL_TEST_TIMEOUT_MS / 1000} s`
        : `The request failed: ${(error as Error).message ?? String(error)}`.slice(0, 500),
    };
  } finally {
    clearTimeout(timer);
  }
  // A test passes on the channel alone; users also need a price (docs/api.md, "Channels: testing").
  const priced = new Set(
    (await db().modelPrice.findMany({ where: { model: { in: models } }, select: { model: true } })).map((row) => row.model),
  );
  return json({ ...result, unpriced: models.filter((model) => !priced.has(model)) });
});
