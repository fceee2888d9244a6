// /v1/audio/transcriptions (multipart): the upload goes to the first channel as it arrives, as image edits do
// (docs/decisions/0015-edits-sent-while-uploaded.md), while its format is read from its first bytes and its duration
// from its own header (./upload.ts). Once the whole form was read and checked, the duration is reserved at the model's
// price per second, and only then is the upstream's request completed (its text fields and closing boundary). The
// charge is the seconds the upstream reports (`usage.seconds`, or `duration`), else the measured duration. A file that
// is not audio, or whose duration cannot be read, is refused before any charge, and the upstream never gets a whole
// request for it.
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import type { Readable } from "node:stream";
import { GatewayError } from "@/lib/platform/errors";
import { parseMultipart, type ParsedMultipart, type UploadedFile } from "@/lib/platform/http/multipart";
import { lingeringBody } from "@/lib/platform/http/linger";
import { DirectResponse } from "@/lib/platform/http/direct-body";
import { costOf, NO_USAGE } from "@/lib/money/prices";
import { requireFundsBeforeBody, requirePrice, reserve } from "@/lib/money/reserve";
import { listCatalog } from "@/lib/catalog";
import { TRANSCRIPTION_MODEL } from "@/lib/catalog/models";
import { channelsFor, upstreamModel, type Channel } from "@/lib/channels";
import { MAX_AUDIO_UPLOAD_BYTES, parseTranscriptionOptions, type TranscriptionOptions } from "@/lib/wire/audio-request";
import { providerOf } from "@/lib/providers";
import { uploadFilename } from "@/lib/providers/audio-api";
import type { AudioUpload, LiveTranscription } from "@/lib/providers/audio-types";
import { gatewayRoute, type GatewayContext } from "@/lib/gateway/pipeline";
import { withFailover } from "@/lib/gateway/relay";
import { requireKind } from "./speech";
import { DurationReader, SNIFF_BYTES, sniffAudio, type AudioReading } from "./upload";

const FORMATS = "mp3, mp4, m4a, wav, webm, ogg or flac";

/** Writes to a temporary file, waiting when the disk is behind. */
function copyWriter(path: string): { write(chunk: Buffer): Promise<void>; close(): Promise<void> } {
  const file = createWriteStream(path, { highWaterMark: 1024 * 1024 });
  const failed = new Promise<never>((_, reject) => file.once("error", reject));
  failed.catch(() => undefined);
  return {
    write: (chunk) => (file.write(chunk) ? Promise.resolve() : Promise.race([once(file, "drain").then(() => undefined), failed])),
    close: () => Promise.race([new Promise<void>((resolve) => file.end(resolve)), failed]),
  };
}

/** The channels of a model that can transcribe, in the order to try them. */
async function transcribingChannels(model: string): Promise<Channel[]> {
  return (await channelsFor(model)).filter((channel) => providerOf(channel.type).transcription);
}

/**
 * One upload, read as it arrives: where its bytes go (the first channel's live request, a temporary file for the
 * channels that read files after it), and what was read from them. Planned when the file starts, for the model named
 * before it, or else the default transcription model.
 */
class Upload {
  live: { channel: Channel; model: string; request: LiveTranscription } | null = null;
  /** The file was also written to its temporary file. */
  stored = false;
  /** What was read from the file, once it has passed. */
  reading: AudioReading | null = null;
  file: UploadedFile | null = null;
  /** A file part in a field other than `file`, or a second file. */
  stray: string | null = null;

  constructor(private readonly context: GatewayContext) {}

  /** The live request and whether to store a copy, for `model` (nothing live when the key may not use it). */
  async #plan(model: string, named: boolean): Promise<boolean> {
    let candidates: Channel[];
    try {
      await requireKind(this.context, model, "transcription");
      candidates = await transcribingChannels(model);
    } catch {
      // Refused once the form has been read, with the same message as without a live upload.
      return false;
    }
    const first = candidates[0];
    const open = first && first.settings.streamUploads !== false ? providerOf(first.type).transcription!.open : undefined;
    if (first && open) {
      const request = open({ channel: first, upstreamModel: upstreamModel(first, model, model), signal: this.context.request.signal });
      this.live = { channel: first, model, request };
    }
    const readsFile = candidates.some((channel) => channel !== this.live?.channel && providerOf(channel.type).transcription!.readsFile);
    // The model came after the file: another transcription model may be meant, whose channels read the copy.
    const otherModels = !named && (await listCatalog()).some((entry) => entry.kind === "transcription" && entry.id !== model);
    return readsFile || otherModels;
  }

  readonly sink = async (file: UploadedFile, stream: Readable, fields: Readonly<Record<string, string>>): Promise<void> => {
    if (file.field !== "file" || this.file) {
      this.stray ??= file.field;
      for await (const _chunk of stream);
      return;
    }
    this.file = file;
    const keepCopy = await this.#plan(fields.model || TRANSCRIPTION_MODEL, Boolean(fields.model));
    const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let head: Buffer = Buffer.alloc(0);
    let done = false;
    while (head.length < SNIFF_BYTES && !done) {
      const next = await iterator.next();
      if (next.done) done = true;
      else head = head.length ? Buffer.concat([head, next.value]) : next.value;
    }
    let size = head.length;
    const format = sniffAudio(head);
    const copy = format && keepCopy && file.path ? copyWriter(file.path) : null;
    const reader = format ? new DurationReader(format) : null;
    async function* rest(): AsyncGenerator<Buffer> {
      while (!done) {
        const next = await iterator.next();
        if (next.done) return;
        size += next.value.length;
        await copy?.write(next.value);
        await reader?.write(next.value);
        yield next.value;
      }
    }
    try {
      if (!format || !reader) {
        this.live?.request.abort();
        for await (const _chunk of rest());
        this.reading = { ok: false, reason: "not_audio" };
        return;
      }
      await copy?.write(head);
      await reader.write(head);
      if (this.live) {
        const part = { field: "file", filename: uploadFilename(file.filename, format.format), mimeType: format.mimeType };
        await this.live.request.file(part, head, rest());
      } else for await (const _chunk of rest());
      await copy?.close();
      this.stored = Boolean(copy);
      this.reading = await reader.end();
    } finally {
      file.size = size;
    }
  };

  abort(): void {
    this.live?.request.abort();
  }
}

/** The file's format and duration, or the 400 that says why it has none. */
async function readFile(upload: Upload): Promise<AudioUpload> {
  const file = upload.file;
  if (upload.stray)
    throw new GatewayError("invalid_request", `Unexpected file in '${upload.stray}': send one audio file, in the field 'file'`, {
      param: upload.stray,
    });
  if (!file || !upload.reading)
    throw new GatewayError("invalid_request", "Send 'file': it is required (the audio to transcribe)", { param: "file" });
  const reading = upload.reading;
  if (!reading.ok) {
    throw new GatewayError(
      "invalid_request",
      reading.reason === "not_audio"
        ? `The file in 'file' is not audio in a format this endpoint takes (${FORMATS})`
        : `The duration of the audio in 'file' cannot be read from its header; the file may be damaged, or a recording that states no length (re-save it as ${FORMATS})`,
      { param: "file" },
    );
  }
  return { field: file.field, filename: file.filename, path: upload.stored ? file.path : "", size: file.size, info: reading.info };
}

async function serve(context: GatewayContext, upload: Upload, options: TranscriptionOptions, file: AudioUpload): Promise<Response> {
  const model = options.model;
  await requireKind(context, model, "transcription");
  const price = await requirePrice(model);
  // The live request was opened for the model named before the file (or the default): another model drops it.
  let live = upload.live;
  if (live && live.model !== model) {
    live.request.abort();
    live = null;
  }
  const candidates = (await transcribingChannels(model)).filter(
    (channel) => channel.id === live?.channel.id || file.path || !providerOf(channel.type).transcription!.readsFile,
  );
  if (!candidates.length) throw new GatewayError("no_channel", `No enabled channel serves the model '${model}'`);
  if (live && candidates[0]!.id !== live.channel.id) {
    live.request.abort();
    live = null;
  }
  // Reserved: the measured duration, up to the whole second (vendors bill whole seconds).
  const measured = file.info.duration;
  const reservation = await reserve(context, model, price, costOf({ ...NO_USAGE, audioSeconds: Math.ceil(measured) }, price));
  const { channel, result } = await withFailover(
    context,
    model,
    reservation,
    (candidate) => {
      const call = {
        channel: candidate,
        publicModel: model,
        upstreamModel: upstreamModel(candidate, model, model),
        options,
        file,
        signal: context.request.signal,
      };
      return candidate.id === live?.channel.id ? live.request.finish(call) : providerOf(candidate.type).transcription!.transcribe(call);
    },
    candidates,
  );
  const seconds = result.seconds ?? measured;
  reservation.settle({
    usage: { ...NO_USAGE, audioSeconds: seconds },
    channel: { id: channel.id, name: channel.name },
    status: "success",
    httpStatus: 200,
    stream: false,
    detail: {
      audioSeconds: seconds,
      measuredSeconds: measured,
      secondsSource: result.seconds === null ? "gateway" : "upstream",
      format: file.info.format,
      bytes: file.size,
      responseFormat: options.format,
    },
  });
  return new DirectResponse([result.body], { status: 200, headers: { "content-type": result.contentType } });
}

export const audioTranscriptions = gatewayRoute(
  { endpoint: "/v1/audio/transcriptions", dialect: "openai", scheme: "bearer", operation: "transcription" },
  async (context) => {
    // The upload is refused past 25 MB while it streams; the connection lingers briefly so the client reads the 413.
    const body = lingeringBody(context.request);
    const upload = new Upload(context);
    let form: ParsedMultipart;
    try {
      await requireFundsBeforeBody(context);
      if (/^application\/json/i.test(context.request.headers.get("content-type") ?? ""))
        throw new GatewayError("invalid_request", "This endpoint takes multipart/form-data with the audio uploaded as a file in 'file'");
      form = await parseMultipart(body.request, {
        maxFileBytes: MAX_AUDIO_UPLOAD_BYTES,
        maxFiles: 1,
        sink: upload.sink,
        sinkKeepsCopies: true,
      });
    } catch (error) {
      upload.abort();
      throw error;
    } finally {
      body.release();
    }
    try {
      const options = parseTranscriptionOptions(form.fields, form.lists);
      const file = await readFile(upload);
      return await serve(context, upload, options, file);
    } finally {
      // Nothing is sent once the answer was read; before that, the upstream's incomplete request is dropped.
      upload.abort();
      await form.cleanup();
    }
  },
);
