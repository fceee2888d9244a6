// The benchmark's upstream: OpenAI- and Anthropic-compatible, on raw node:http so it costs as little as possible.
//   npx tsx bench/fake-upstream.ts [--port 0] [--latency-ms 0] [--events 20] [--event-gap-ms 0]
// Prints "listening <port>" once ready.
//   POST /v1/chat/completions   JSON, or SSE chunks (stream: true) with a usage chunk
//   POST /v1/messages           Anthropic message, or its event stream
//   POST /v1/images/generations a pre-rendered PNG (size from the request, e.g. 3840x2160) as b64_json
//   POST /v1/images/edits       drains the multipart upload (the fields are read from its first and last 64 KB), answers
//                               like generations
//   POST /v1/responses          a Responses event stream with N images (from the prompt: "three images"; size from
//                               the image_generation tool, default 1024x1024), each as partial_image + output_item.done
//   GET  /__stats               requests answered per path since the last POST /__stats/reset
// A streaming chat request may carry `bench_events` and `bench_event_gap_ms` (the gateway passes unknown fields on)
// to override --events and --event-gap-ms for that request.
import http from "node:http";
import sharp from "sharp";
import { imageOutputTokens, resolveQuality, type ImageQuality } from "@/lib/money/image-tokens";
import { countTextTokens } from "@/lib/money/tokens";
import { anthropicEvents } from "../tests/helpers/fake-upstream";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
}

const latencyMs = option("latency-ms", 0);
const streamEvents = option("events", 20);
const eventGapMs = option("event-gap-ms", 0);

const images = new Map<string, string>();
async function imageB64(size: string): Promise<string> {
  const cached = images.get(size);
  if (cached) return cached;
  const [width, height] = size.split("x").map(Number) as [number, number];
  // Noise compresses badly, so the PNG is as large as a real photo-like image of this size.
  const raw = Buffer.alloc(width * height * 3);
  let seed = 7;
  // Math.imul: a plain multiplication loses the low bits past 2^53 and the "noise" collapses into a short cycle.
  for (let index = 0; index < raw.length; index++) raw[index] = (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) >> 16;
  const png = await sharp(raw, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
  const b64 = png.toString("base64");
  images.set(size, b64);
  return b64;
}

/**
 * The whole image answer, built once per size, quality and prompt length (so the direct baseline does not pay for a
 * 30 MB concatenation). Its usage is what the vendor bills: the prompt's tokens, and the output for that size and
 * quality from the published token table (as lib/money/image-tokens.ts has it). Before, a fixed 6,000 output tokens for
 * every image made the gateway log an over-reservation on each 1024x1024 low-quality edit: a vendor billing past its
 * own price list, which the gateway charges in full and reports.
 */
const answers = new Map<string, Buffer>();
async function imageAnswer(size: string, quality: string, prompt = ""): Promise<Buffer> {
  const input = countTextTokens(prompt);
  const key = `${size}/${quality}/${input}`;
  const cached = answers.get(key);
  if (cached) return cached;
  const b64 = await imageB64(size);
  const [width, height] = size.split("x").map(Number) as [number, number];
  const level = ["low", "medium", "high"].includes(quality) ? (quality as ImageQuality) : resolveQuality("auto");
  const output = imageOutputTokens(width, height, level);
  const answer = Buffer.from(
    `{"created":1700000000,"data":[{"b64_json":"${b64}"}],"usage":{"input_tokens":${input},"input_tokens_details":{"text_tokens":${input},"image_tokens":0},"output_tokens":${output},"total_tokens":${input + output}}}`,
  );
  answers.set(key, answer);
  return answer;
}

const wait = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
const usage = { prompt_tokens: 12, completion_tokens: 20, total_tokens: 32 };

function chatJson(model: string): string {
  return JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: "assistant", content: "Hello from the benchmark upstream." }, finish_reason: "stop" }],
    usage,
  });
}

async function sse(response: http.ServerResponse, events: string[], gapMs = eventGapMs): Promise<void> {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const event of events) {
    if (response.destroyed) return;
    const flushed = response.write(event);
    // Large events (images): wait for the socket to take them, as a real server would.
    if (!flushed) await new Promise((resolve) => response.once("drain", resolve));
    await wait(gapMs);
  }
  response.end();
}

const stats = new Map<string, number>();

const NUMBER_WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };

/** "three images" (or "3 images") anywhere in the request's text: how many images the fake model makes. */
function imageCount(body: Record<string, any>): number {
  const text = JSON.stringify(body.input ?? body.messages ?? "");
  const found = /\b(one|two|three|four|five|six|\d+)\s+images?\b/i.exec(text);
  if (!found) return 1;
  const word = found[1]!.toLowerCase();
  return Math.min(NUMBER_WORDS[word] ?? (Number(word) || 1), 8);
}

const IMAGE_PLACEHOLDER = "@@bench-image@@";
const b64Bytes = new Map<string, Buffer>();

async function responsesStream(response: http.ServerResponse, body: Record<string, any>): Promise<void> {
  const tool = (Array.isArray(body.tools) ? body.tools : []).find((entry: any) => entry?.type === "image_generation") ?? {};
  const size = typeof tool.size === "string" && /^\d+x\d+$/.test(tool.size) ? tool.size : "1024x1024";
  const b64 = await imageB64(size);
  const model = String(body.model ?? "bench-model");
  const count = imageCount(body);
  const id = `resp_bench${Date.now().toString(36)}`;
  const output: Record<string, unknown>[] = [];
  const base = () => ({
    id,
    object: "response",
    created_at: 1_700_000_000,
    status: "in_progress",
    background: false,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    max_output_tokens: null,
    model,
    output: output.map((item) => ({ ...item })),
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: body.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage: null,
    user: null,
    metadata: {},
  });
  let sequence = 0;
  const event = (payload: Record<string, unknown>): (string | Buffer)[] => {
    const text = `event: ${payload.type}\ndata: ${JSON.stringify({ ...payload, sequence_number: sequence++ })}\n\n`;
    // The image goes out as the cached bytes, not through JSON.stringify: the fake should cost little next to the gateway.
    const at = text.indexOf(IMAGE_PLACEHOLDER);
    return at < 0 ? [text] : [text.slice(0, at), imageBytes, text.slice(at + IMAGE_PLACEHOLDER.length)];
  };
  const imageBytes = b64Bytes.get(size) ?? b64Bytes.set(size, Buffer.from(b64, "latin1")).get(size)!;
  const events: (() => (string | Buffer)[])[] = [
    () => event({ type: "response.created", response: base() }),
    () => event({ type: "response.in_progress", response: base() }),
  ];
  for (let index = 0; index < count; index++) {
    const itemId = `ig_bench${index}`;
    const details = {
      background: "opaque",
      output_format: "png",
      quality: tool.quality ?? "low",
      revised_prompt: `image ${index + 1}`,
      size,
    };
    events.push(
      () => {
        output.push({ id: itemId, type: "image_generation_call", status: "in_progress" });
        return event({
          type: "response.output_item.added",
          output_index: index,
          item: { id: itemId, type: "image_generation_call", status: "in_progress" },
        });
      },
      () => event({ type: "response.image_generation_call.in_progress", output_index: index, item_id: itemId }),
      () => event({ type: "response.image_generation_call.generating", output_index: index, item_id: itemId }),
      () =>
        event({
          type: "response.image_generation_call.partial_image",
          output_index: index,
          item_id: itemId,
          partial_image_index: 0,
          partial_image_b64: IMAGE_PLACEHOLDER,
          background: "opaque",
          output_format: "png",
          quality: details.quality,
          size,
        }),
      () => {
        Object.assign(output[index]!, { status: "completed", ...details });
        return event({
          type: "response.output_item.done",
          output_index: index,
          item: { id: itemId, type: "image_generation_call", status: "completed", ...details, result: IMAGE_PLACEHOLDER },
        });
      },
    );
  }
  events.push(() => {
    const imageTokens = 1_000 * count;
    return event({
      type: "response.completed",
      response: {
        ...base(),
        status: "completed",
        usage: {
          input_tokens: 40,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 30,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 70,
        },
        tool_usage: {
          image_gen: {
            input_tokens: 30 * count,
            input_tokens_details: { image_tokens: 0, text_tokens: 30 * count },
            output_tokens: imageTokens,
            output_tokens_details: { image_tokens: imageTokens, text_tokens: 0 },
            total_tokens: 30 * count + imageTokens,
          },
        },
      },
    });
  });
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const next of events) {
    if (response.destroyed) return;
    let flushed = true;
    for (const chunk of next()) flushed = response.write(chunk);
    if (!flushed) await new Promise((resolve) => response.once("drain", resolve));
    await wait(eventGapMs);
  }
  response.end();
}

const server = http.createServer((request, response) => {
  const path = request.url ?? "";
  if (request.method === "GET" && path === "/__stats")
    return void response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Object.fromEntries(stats)));
  if (request.method === "POST" && path === "/__stats/reset") {
    stats.clear();
    return void response.writeHead(204).end();
  }
  const chunks: Buffer[] = [];
  const multipart = (request.headers["content-type"] ?? "").startsWith("multipart/");
  // Of a multipart upload only the first and the last 64 KB are kept: the text fields come before the files or, from
  // a gateway that sends the files on as they arrive, after them.
  let head = "";
  let tail: Buffer = Buffer.alloc(0);
  request.on("data", (chunk: Buffer) => {
    if (!multipart) chunks.push(chunk);
    else {
      if (head.length < 65_536) head += chunk.toString("latin1", 0, Math.min(chunk.length, 65_536));
      tail = chunk.length >= 65_536 ? chunk.subarray(chunk.length - 65_536) : Buffer.concat([tail, chunk]).subarray(-65_536);
    }
  });
  request.on("end", async () => {
    stats.set(path, (stats.get(path) ?? 0) + 1);
    await wait(latencyMs);
    let body: Record<string, any> = {};
    let bodyBytes = 0;
    for (const chunk of chunks) bodyBytes += chunk.length;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {};
    } catch {
      body = {};
    }
    if (multipart) {
      const text = head + tail.toString("latin1");
      const size = /name="size"\r\n(?:[^\r\n]*\r\n)*\r\n(\d+x\d+)\r\n/.exec(text);
      if (size) body.size = size[1];
      const quality = /name="quality"\r\n(?:[^\r\n]*\r\n)*\r\n(\w+)\r\n/.exec(text);
      if (quality) body.quality = quality[1];
      const prompt = /name="prompt"\r\n(?:[^\r\n]*\r\n)*\r\n([^\r]*)\r\n/.exec(text);
      if (prompt) body.prompt = prompt[1];
    }
    const model = String(body.model ?? "bench-model");
    if (path.endsWith("/chat/completions")) {
      if (!body.stream) return void response.writeHead(200, { "content-type": "application/json" }).end(chatJson(model));
      const base = `{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":${JSON.stringify(model)},`;
      const events = [`data: ${base}"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n`];
      const count = typeof body.bench_events === "number" ? body.bench_events : streamEvents;
      for (let index = 0; index < count; index++)
        events.push(`data: ${base}"choices":[{"index":0,"delta":{"content":"word${index} "},"finish_reason":null}]}\n\n`);
      events.push(`data: ${base}"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`);
      events.push(`data: ${base}"choices":[],"usage":${JSON.stringify(usage)}}\n\n`, "data: [DONE]\n\n");
      return void (await sse(response, events, typeof body.bench_event_gap_ms === "number" ? body.bench_event_gap_ms : eventGapMs));
    }
    if (path.endsWith("/responses")) return void (await responsesStream(response, body));
    if (path.endsWith("/messages")) {
      // Billed like the vendor: input from the request (here ~4 bytes per token, cheap to work out), 20 out.
      const inputTokens = Math.max(12, Math.ceil(bodyBytes / 4));
      if (body.stream) {
        const count = typeof body.bench_events === "number" ? body.bench_events : streamEvents;
        const words = Array.from({ length: count }, (_, index) => `word${index} `);
        const events = anthropicEvents(words, model, { input_tokens: inputTokens, output_tokens: count }).map(
          ({ event, data }) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`,
        );
        return void (await sse(response, events, typeof body.bench_event_gap_ms === "number" ? body.bench_event_gap_ms : eventGapMs));
      }
      const message = {
        id: "msg_bench",
        type: "message",
        role: "assistant",
        model,
        content: [{ type: "text", text: "Hello from the benchmark upstream." }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: 20 },
      };
      return void response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(message));
    }
    if (path.endsWith("/images/generations") || path.endsWith("/images/edits")) {
      const size = typeof body.size === "string" && /^\d+x\d+$/.test(body.size) ? body.size : "3840x2160";
      const answer = await imageAnswer(
        size,
        typeof body.quality === "string" ? body.quality : "auto",
        typeof body.prompt === "string" ? body.prompt : "",
      );
      return void response.writeHead(200, { "content-type": "application/json", "content-length": answer.length }).end(answer);
    }
    response.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"unknown path"}}');
  });
});

server.keepAliveTimeout = 65_000;
// --prewarm 3840x2160,1024x1024: render these images before announcing the port, so no request waits for sharp.
const prewarmIndex = process.argv.indexOf("--prewarm");
const prewarm = prewarmIndex > 0 ? process.argv[prewarmIndex + 1]!.split(",").filter((size) => /^\d+x\d+$/.test(size)) : [];
await Promise.all(prewarm.flatMap((size) => ["auto", "low", "medium", "high"].map((quality) => imageAnswer(size, quality))));
server.listen(option("port", 0), "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : 0}\n`);
});
