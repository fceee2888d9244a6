// /v1/audio/speech (JSON): validate (docs/api.md §2.8), authorise a speech model, refuse a text longer than the
// model speaks, reserve its characters at the model's price per character, relay through the channels that write the
// asked format, and pass the audio on as the upstream makes it. The charge is the reservation (the vendor bills the
// characters) once the audio was delivered; nothing when the upstream failed. Bad input costs nothing.
import { GatewayError } from "@/lib/platform/errors";
import { readJsonObjectWatched } from "@/lib/platform/http/watched-body";
import { lingeringBody } from "@/lib/platform/http/linger";
import { DirectResponse, type BodyPart } from "@/lib/platform/http/direct-body";
import { paidBodyWatch } from "@/lib/money/body-funds";
import { costOf, NO_USAGE } from "@/lib/money/prices";
import { requirePrice, reserve } from "@/lib/money/reserve";
import { catalogEntryOrGeneric } from "@/lib/catalog";
import { channelsFor, upstreamModel, type Channel } from "@/lib/channels";
import { checkSpeechLength, parseSpeechOptions, SPEECH_FORMATS, type SpeechOptions } from "@/lib/wire/audio-request";
import { providerOf } from "@/lib/providers";
import { authoriseModel, gatewayRoute, type GatewayContext } from "@/lib/gateway/pipeline";
import { withFailover } from "@/lib/gateway/relay";

/** A speech body holds at most 4,096 characters of input and of instructions: 1 MB is far more. */
export const SPEECH_BODY_LIMIT = 1024 * 1024;

/** A model of this kind is what the endpoint serves; anything else is the wrong model for it (a 400 naming it). */
export async function requireKind(context: GatewayContext, model: string, kind: "speech" | "transcription") {
  await authoriseModel(context.principal, model);
  const entry = await catalogEntryOrGeneric(model);
  if (entry.kind !== kind) {
    throw new GatewayError(
      "invalid_request",
      `Invalid 'model': '${model.slice(0, 100)}' is a${entry.kind === "image" ? "n" : ""} ${entry.kind} model, served by ${entry.endpoints.join(" and ")}; ${context.endpoint} takes a ${kind} model`,
      { param: "model" },
    );
  }
  return entry;
}

/** The channels that can write the asked format, in the order to try them; a 400 naming the formats there are. */
async function speakingChannels(options: SpeechOptions): Promise<Channel[]> {
  const all = (await channelsFor(options.model)).filter((channel) => providerOf(channel.type).speech);
  if (!all.length) throw new GatewayError("no_channel", `No enabled channel serves the model '${options.model}'`);
  const formats = (channel: Channel) => providerOf(channel.type).speech!.formats ?? SPEECH_FORMATS;
  const able = all.filter((channel) => formats(channel).includes(options.format));
  if (!able.length) {
    const offered = [...new Set(all.flatMap((channel) => [...formats(channel)]))];
    throw new GatewayError(
      "invalid_request",
      `Invalid 'response_format': '${options.format}' is not available for '${options.model}' on this gateway; it writes ${offered.map((format) => `'${format}'`).join(", ")}`,
      { param: "response_format" },
    );
  }
  return able;
}

export const audioSpeech = gatewayRoute(
  { endpoint: "/v1/audio/speech", dialect: "openai", scheme: "bearer", operation: "speech" },
  async (context) => {
    const body = lingeringBody(context.request);
    let raw: Record<string, unknown>;
    try {
      if (/^multipart\/form-data/i.test(context.request.headers.get("content-type") ?? ""))
        throw new GatewayError("invalid_request", "This endpoint takes a JSON body (Content-Type: application/json)");
      raw = await readJsonObjectWatched(body.request, SPEECH_BODY_LIMIT, paidBodyWatch(context));
    } finally {
      body.release();
    }
    const options = parseSpeechOptions(raw);
    const entry = await requireKind(context, options.model, "speech");
    // The catalog's context window of a speech model is the most characters it speaks (4,096 for std-tts-1).
    checkSpeechLength(options, entry.contextWindow);
    const price = await requirePrice(options.model);
    const candidates = await speakingChannels(options);
    const usage = { ...NO_USAGE, inputCharacters: options.characters };
    const reservation = await reserve(context, options.model, price, costOf(usage, price));

    const { channel, result } = await withFailover(
      context,
      options.model,
      reservation,
      (candidate) =>
        providerOf(candidate.type).speech!.speak({
          channel: candidate,
          publicModel: options.model,
          upstreamModel: upstreamModel(candidate, options.model, options.model),
          options,
          signal: context.request.signal,
        }),
      candidates,
    );
    const detail = {
      characters: options.characters,
      voice: options.voice,
      format: options.format,
      speed: options.speed,
      ...(options.sse ? { streamFormat: "sse" } : {}),
    };
    const settle = (status: "success" | "cancelled", error?: string) =>
      reservation.settle({
        usage,
        channel: { id: channel.id, name: channel.name },
        status,
        httpStatus: 200,
        stream: true,
        ...(error ? { error } : {}),
        detail,
      });
    const { chunks } = result;
    async function* audio(): AsyncGenerator<BodyPart> {
      let finished = false;
      try {
        for await (const chunk of chunks) yield chunk;
        settle("success");
        finished = true;
      } finally {
        if (!finished) {
          if (context.request.signal.aborted) {
            // The client left while the audio was on its way: the upstream read the whole text and bills it.
            settle("cancelled", "The client closed the connection during the audio");
          } else {
            // The upstream's answer broke off: the client has no whole file, so nothing is charged.
            reservation.release({
              channel: { id: channel.id, name: channel.name },
              status: "error",
              httpStatus: 502,
              error: "The upstream's audio was cut off",
              stream: true,
            });
          }
        }
      }
    }
    return new DirectResponse([audio()], { status: 200, headers: { "content-type": result.contentType } });
  },
);
