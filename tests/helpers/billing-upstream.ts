// A fake vendor that bills like one, for the money invariant (docs/billing.md): input by the size of the request it
// receives (one token per 4 bytes), output up to the cap it receives (20,000 tokens when none: the worst case of a
// model that writes until it is stopped), images by the vendor's arithmetic for the size and quality it receives (auto
// as 1024x1024 and high, the dearest the vendor picks) and input images by the vendor's documented rule, both in the
// fakes' own copies rather than the gateway's (so that a gateway count below the vendor's shows as an
// over-reservation), server tools per use up to their `max_uses` (20 when none). It serves OpenAI Chat Completions,
// Images and Responses (the image tool, the most tool calls allowed) and Anthropic Messages, records every request
// with its bill and whether it carried an output cap, and answers with that bill as the usage.
import http from "node:http";
import type { AddressInfo } from "node:net";
import busboy from "busboy";
import sharp from "sharp";
import { imageTokens } from "./fault-upstream";

export const UNCAPPED_OUTPUT = 20_000;
const UNCAPPED_TOOL_USES = 20;

export type Bill = {
  endpoint: "chat" | "messages" | "images" | "edits" | "responses";
  /** The upstream model named in the request. */
  model: string;
  textInputTokens: number;
  textOutputTokens: number;
  imageInputTokens: number;
  imageOutputTokens: number;
  toolUses: Record<string, number>;
  /** The output limit the request carried (max tokens, or for images an explicit size); null when it carried none. */
  cap: number | string | null;
  body: any;
  headers: http.IncomingHttpHeaders;
};

export type BillingUpstream = { url: string; bills: Bill[]; close: () => Promise<void> };

const tokensOf = (bytes: number) => Math.ceil(bytes / 4);

let pngCache: Promise<string> | null = null;
function tinyPng(): Promise<string> {
  pngCache ??= sharp({ create: { width: 16, height: 16, channels: 3, background: "#336699" } })
    .png()
    .toBuffer()
    .then((buffer) => buffer.toString("base64"));
  return pngCache;
}

function sizeOf(size: unknown): { width: number; height: number } {
  const match = typeof size === "string" ? /^(\d+)x(\d+)$/.exec(size) : null;
  return match ? { width: Number(match[1]), height: Number(match[2]) } : { width: 1024, height: 1024 };
}

/**
 * An input image as the vendor documents it for an image model at high fidelity, which gpt-image-2 always uses
 * (https://developers.openai.com/api/docs/guides/images-vision#calculating-costs, GPT Image 1): fit within 2048x2048,
 * shortest side down to 512, 65 + 129 per 512 px tile, plus 4,160 for a square image and 6,240 for any other.
 */
export function inputImageTokens(width: number, height: number): number {
  const fit = Math.min(1, 2048 / Math.max(width, height));
  const shorten = Math.min(1, 512 / (Math.min(width, height) * fit));
  const side = (pixels: number) => Math.ceil(Math.round(pixels * fit * shorten) / 512);
  return 65 + 129 * side(width) * side(height) + (width === height ? 4160 : 6240);
}

function qualityOf(quality: unknown): "low" | "medium" | "high" {
  return quality === "low" || quality === "medium" ? quality : "high";
}

function sse(response: http.ServerResponse, events: { event?: string; data: unknown }[]): void {
  response.writeHead(200, { "content-type": "text/event-stream" });
  for (const event of events)
    response.write(
      `${event.event ? `event: ${event.event}\n` : ""}data: ${typeof event.data === "string" ? event.data : JSON.stringify(event.data)}\n\n`,
    );
  response.end();
}

function json(response: http.ServerResponse, body: unknown): void {
  response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
}

export type BillingOptions = {
  /** Output tokens billed beyond the cap on every request: a vendor that bills past what it was allowed. */
  overbillOutput?: number;
  /** Messages: answer with a tool call to `generate_image` while no tool result was sent (the gateway's tool loop). */
  callImageTool?: boolean;
};

export async function startBillingUpstream(options: BillingOptions = {}): Promise<BillingUpstream> {
  const bills: Bill[] = [];
  const record = (bill: Omit<Bill, "toolUses"> & { toolUses?: Record<string, number> }) => {
    const full = { toolUses: {}, ...bill };
    bills.push(full);
    return full;
  };

  async function chat(raw: Buffer, body: any, headers: http.IncomingHttpHeaders, response: http.ServerResponse) {
    const cap = body.max_completion_tokens ?? body.max_tokens ?? null;
    const bill = record({
      endpoint: "chat",
      model: body.model,
      textInputTokens: tokensOf(raw.length),
      textOutputTokens: (cap ?? UNCAPPED_OUTPUT) + (options.overbillOutput ?? 0),
      imageInputTokens: 0,
      imageOutputTokens: 0,
      cap,
      body,
      headers,
    });
    const usage = {
      prompt_tokens: bill.textInputTokens,
      completion_tokens: bill.textOutputTokens,
      total_tokens: bill.textInputTokens + bill.textOutputTokens,
    };
    const base = { id: "chatcmpl-billing", created: 1_700_000_000, model: body.model };
    const wantsTool =
      Array.isArray(body.tools) &&
      body.tools.some((tool: any) => tool?.function?.name === "generate_image") &&
      !body.messages.some((message: any) => message.role === "tool");
    const message = wantsTool
      ? {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "generate_image", arguments: JSON.stringify({ prompt: "a lighthouse at dusk", action: "generate" }) },
            },
          ],
        }
      : { role: "assistant", content: "Billed as written." };
    if (!body.stream)
      return json(response, {
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message, finish_reason: wantsTool ? "tool_calls" : "length" }],
        usage,
      });
    sse(response, [
      {
        data: {
          ...base,
          object: "chat.completion.chunk",
          choices: [{ index: 0, delta: { role: "assistant", content: "Billed " }, finish_reason: null }],
        },
      },
      {
        data: {
          ...base,
          object: "chat.completion.chunk",
          choices: [{ index: 0, delta: { content: "as written." }, finish_reason: "length" }],
        },
      },
      { data: { ...base, object: "chat.completion.chunk", choices: [], usage } },
      { data: "[DONE]" },
    ]);
  }

  async function messages(raw: Buffer, body: any, headers: http.IncomingHttpHeaders, response: http.ServerResponse) {
    const toolUses: Record<string, number> = {};
    for (const tool of Array.isArray(body.tools) ? body.tools : []) {
      if (typeof tool?.type === "string" && tool.type !== "custom") {
        const name = tool.type.replace(/_\d{8}$/, "");
        if (name === "web_search" || name === "web_fetch") toolUses[name] = (toolUses[name] ?? 0) + (tool.max_uses ?? UNCAPPED_TOOL_USES);
      }
    }
    const cap = typeof body.max_tokens === "number" ? body.max_tokens : null;
    const bill = record({
      endpoint: "messages",
      model: body.model,
      textInputTokens: tokensOf(raw.length),
      textOutputTokens: (cap ?? UNCAPPED_OUTPUT) + (options.overbillOutput ?? 0),
      imageInputTokens: 0,
      imageOutputTokens: 0,
      toolUses,
      cap,
      body,
      headers,
    });
    const serverToolUse = Object.keys(toolUses).length
      ? Object.fromEntries(Object.entries(toolUses).map(([name, count]) => [`${name}_requests`, count]))
      : undefined;
    const usage = {
      input_tokens: bill.textInputTokens,
      output_tokens: bill.textOutputTokens,
      ...(serverToolUse ? { server_tool_use: serverToolUse } : {}),
    };
    const base = { id: "msg_billing", type: "message", role: "assistant", model: body.model, stop_sequence: null };
    if (!body.stream)
      return json(response, { ...base, content: [{ type: "text", text: "Billed as written." }], stop_reason: "max_tokens", usage });
    sse(response, [
      {
        event: "message_start",
        data: {
          type: "message_start",
          message: { ...base, content: [], stop_reason: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } },
        },
      },
      { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
      {
        event: "content_block_delta",
        data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Billed as written." } },
      },
      { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
      { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "max_tokens", stop_sequence: null }, usage } },
      { event: "message_stop", data: { type: "message_stop" } },
    ]);
  }

  async function image(
    endpoint: "images" | "edits",
    prompt: string,
    fields: Record<string, unknown>,
    inputs: { width: number; height: number }[],
    body: any,
    headers: http.IncomingHttpHeaders,
    response: http.ServerResponse,
  ) {
    const { width, height } = sizeOf(fields.size);
    const quality = qualityOf(fields.quality);
    const bill = record({
      endpoint,
      model: String(fields.model),
      textInputTokens: tokensOf(Buffer.byteLength(prompt)),
      textOutputTokens: 0,
      imageInputTokens: inputs.reduce((total, input) => total + inputImageTokens(input.width, input.height), 0),
      imageOutputTokens: imageTokens(width, height, quality) + (options.overbillOutput ?? 0),
      cap: typeof fields.size === "string" && fields.size !== "auto" ? fields.size : null,
      body,
      headers,
    });
    json(response, {
      created: 1_700_000_000,
      data: [{ b64_json: await tinyPng() }],
      size: `${width}x${height}`,
      quality,
      output_format: "png",
      usage: {
        input_tokens: bill.textInputTokens + bill.imageInputTokens,
        input_tokens_details: { text_tokens: bill.textInputTokens, image_tokens: bill.imageInputTokens },
        output_tokens: bill.imageOutputTokens,
        output_tokens_details: { image_tokens: bill.imageOutputTokens, text_tokens: 0 },
      },
    });
  }

  async function edits(incoming: http.IncomingMessage, headers: http.IncomingHttpHeaders, response: http.ServerResponse) {
    const fields: Record<string, string> = {};
    const files: Promise<{ width: number; height: number; field: string }>[] = [];
    await new Promise<void>((resolve, reject) => {
      const parser = busboy({ headers: incoming.headers });
      parser.on("field", (name, value) => (fields[name] = value));
      parser.on("file", (name, stream) => {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        files.push(
          new Promise((done) =>
            stream.on(
              "end",
              () =>
                void sharp(Buffer.concat(chunks))
                  .metadata()
                  .then((meta) => done({ width: meta.width!, height: meta.height!, field: name })),
            ),
          ),
        );
      });
      parser.on("close", resolve);
      parser.on("error", reject);
      incoming.pipe(parser);
    });
    const inputs = (await Promise.all(files)).filter((file) => file.field !== "mask");
    await image("edits", fields.prompt ?? "", fields, inputs, fields, headers, response);
  }

  async function responses(raw: Buffer, body: any, headers: http.IncomingHttpHeaders, response: http.ServerResponse) {
    const tool = (body.tools ?? []).find((entry: any) => entry?.type === "image_generation") ?? {};
    const images = body.max_tool_calls ?? 8;
    const { width, height } = sizeOf(tool.size);
    const quality = qualityOf(tool.quality);
    const perImage = imageTokens(width, height, quality) + Number(tool.partial_images ?? 0) * 100;
    const revised = "a lighthouse at dusk, oil painting";
    // The model reads the whole input once per tool call and once more to answer.
    const bill = record({
      endpoint: "responses",
      model: body.model,
      textInputTokens: tokensOf(raw.length) * (images + 1) + tokensOf(Buffer.byteLength(revised)) * images,
      textOutputTokens: (body.max_output_tokens ?? UNCAPPED_OUTPUT) + (options.overbillOutput ?? 0),
      imageInputTokens: 0,
      imageOutputTokens: perImage * images,
      cap: body.max_output_tokens ?? null,
      body,
      headers,
    });
    const b64 = await tinyPng();
    const envelope = (status: string, extra: Record<string, unknown> = {}) => ({
      id: "resp_billing",
      object: "response",
      model: body.model,
      status,
      tools: body.tools,
      ...extra,
    });
    const events: { event?: string; data: unknown }[] = [
      { data: { type: "response.created", response: envelope("in_progress") } },
      { data: { type: "response.in_progress", response: envelope("in_progress") } },
    ];
    for (let index = 0; index < images; index++) {
      const id = `ig_billing_${index}`;
      events.push({
        data: {
          type: "response.output_item.added",
          output_index: index,
          item: { id, type: "image_generation_call", status: "in_progress" },
        },
      });
      events.push({
        data: {
          type: "response.output_item.done",
          output_index: index,
          item: {
            id,
            type: "image_generation_call",
            status: "completed",
            size: `${width}x${height}`,
            quality,
            output_format: "png",
            background: "opaque",
            revised_prompt: revised,
            result: b64,
          },
        },
      });
    }
    const textInput = bill.textInputTokens - tokensOf(Buffer.byteLength(revised)) * images;
    events.push({
      data: {
        type: "response.completed",
        response: envelope("completed", {
          usage: { input_tokens: textInput, output_tokens: bill.textOutputTokens },
          tool_usage: {
            image_gen: {
              input_tokens: bill.textInputTokens - textInput,
              input_tokens_details: { text_tokens: bill.textInputTokens - textInput, image_tokens: 0 },
              output_tokens: bill.imageOutputTokens,
              output_tokens_details: { image_tokens: bill.imageOutputTokens, text_tokens: 0 },
            },
          },
        }),
      },
    });
    sse(
      response,
      events.map((event) => ({ event: (event.data as { type: string }).type, data: event.data })),
    );
  }

  const server = http.createServer((incoming, outgoing) => {
    const path = incoming.url ?? "";
    if (path.endsWith("/images/edits")) {
      void edits(incoming, incoming.headers, outgoing).catch(() => outgoing.destroy());
      return;
    }
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const raw = Buffer.concat(chunks);
      const body = JSON.parse(raw.toString("utf8") || "{}");
      const work = path.endsWith("/chat/completions")
        ? chat(raw, body, incoming.headers, outgoing)
        : path.endsWith("/messages")
          ? messages(raw, body, incoming.headers, outgoing)
          : path.endsWith("/images/generations")
            ? image("images", body.prompt ?? "", body, [], body, incoming.headers, outgoing)
            : path.endsWith("/responses")
              ? responses(raw, body, incoming.headers, outgoing)
              : Promise.resolve(void outgoing.writeHead(404).end());
      void work.catch(() => outgoing.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bills,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
