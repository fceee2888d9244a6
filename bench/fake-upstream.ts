// The benchmark's upstream: OpenAI- and Anthropic-compatible, on raw node:http so it costs as little as possible.
//   npx tsx bench/fake-upstream.ts [--port 0] [--latency-ms 0] [--events 20] [--event-gap-ms 0]
// Prints "listening <port>" once ready.
//   POST /v1/chat/completions   JSON, or SSE chunks (stream: true) with a usage chunk
//   POST /v1/messages           Anthropic message, or its event stream
//   POST /v1/images/generations a pre-rendered PNG (size from the request, e.g. 3840x2160) as b64_json
//   POST /v1/images/edits       drains the multipart upload, answers like generations
//   POST /v1/responses          a Responses event stream with N images (from the prompt: "three images")
import http from "node:http";
import sharp from "sharp";

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
  for (let index = 0; index < raw.length; index++) raw[index] = (seed = (seed * 1103515245 + 12345) & 0x7fffffff) >> 16;
  const png = await sharp(raw, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer();
  const b64 = png.toString("base64");
  images.set(size, b64);
  return b64;
}

const wait = (ms: number) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());
const usage = { prompt_tokens: 12, completion_tokens: 20, total_tokens: 32 };

function chatJson(model: string): string {
  return JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion", created: 1_700_000_000, model, choices: [{ index: 0, message: { role: "assistant", content: "Hello from the benchmark upstream." }, finish_reason: "stop" }], usage });
}

async function sse(response: http.ServerResponse, events: string[]): Promise<void> {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const event of events) {
    response.write(event);
    await wait(eventGapMs);
  }
  response.end();
}

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  const multipart = (request.headers["content-type"] ?? "").startsWith("multipart/");
  request.on("data", (chunk: Buffer) => {
    if (!multipart) chunks.push(chunk);
  });
  request.on("end", async () => {
    await wait(latencyMs);
    let body: Record<string, any> = {};
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {};
    } catch {
      body = {};
    }
    const path = request.url ?? "";
    const model = String(body.model ?? "bench-model");
    if (path.endsWith("/chat/completions")) {
      if (!body.stream) return void response.writeHead(200, { "content-type": "application/json" }).end(chatJson(model));
      const base = `{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":${JSON.stringify(model)},`;
      const events = [`data: ${base}"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n`];
      for (let index = 0; index < streamEvents; index++) events.push(`data: ${base}"choices":[{"index":0,"delta":{"content":"word${index} "},"finish_reason":null}]}\n\n`);
      events.push(`data: ${base}"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`);
      events.push(`data: ${base}"choices":[],"usage":${JSON.stringify(usage)}}\n\n`, "data: [DONE]\n\n");
      return void (await sse(response, events));
    }
    if (path.endsWith("/messages")) {
      const message = { id: "msg_bench", type: "message", role: "assistant", model, content: [{ type: "text", text: "Hello from the benchmark upstream." }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 12, output_tokens: 20 } };
      return void response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(message));
    }
    if (path.endsWith("/images/generations") || path.endsWith("/images/edits")) {
      const size = typeof body.size === "string" && /^\d+x\d+$/.test(body.size) ? body.size : "3840x2160";
      const b64 = await imageB64(size);
      const answer = `{"created":1700000000,"data":[{"b64_json":"${b64}"}],"usage":{"input_tokens":50,"input_tokens_details":{"text_tokens":50,"image_tokens":0},"output_tokens":6000,"total_tokens":6050}}`;
      return void response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) }).end(answer);
    }
    response.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"unknown path"}}');
  });
});

server.keepAliveTimeout = 65_000;
server.listen(option("port", 0), "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : 0}\n`);
});
