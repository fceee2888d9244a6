// A fake of an Azure OpenAI resource (https://RESOURCE.openai.azure.com) that records every request and checks it as
// Azure does: the key in `api-key` (an `Authorization` header is not what a key resource reads), an `api-version`
// it knows, a deployment that exists, the body's required fields. Bodies and errors: tests/fakes/azure-wire.ts.
// Tests script answers with `fake.answers` (see AzureAnswer).
import type http from "node:http";
import busboy from "busboy";
import { startFakeUpstream } from "../helpers/fake-upstream.ts";
import {
  ACCESS_DENIED,
  API_VERSION_UNSUPPORTED,
  type AzureAnswer,
  azureError,
  chatChunks,
  chatCompletion,
  DEPLOYMENT_NOT_FOUND,
  embeddingBase64,
  embeddingOf,
  imageAnswer,
  promptFiltered,
  RESOURCE_NOT_FOUND,
} from "./azure-wire.ts";
import { type FakeRequest, recordRequest } from "./gemini-wire.ts";

/** The data-plane versions the fake knows (GA and preview), as listed on the API lifecycle page. */
export const AZURE_API_VERSIONS = [
  "2024-02-01",
  "2024-06-01",
  "2024-08-01-preview",
  "2024-09-01-preview",
  "2024-10-01-preview",
  "2024-10-21",
  "2024-12-01-preview",
  "2025-01-01-preview",
  "2025-03-01-preview",
  "2025-04-01-preview",
];

/**
 * `stream_options` is refused before this version: 2024-06-01 and older refused it
 * (https://github.com/openai/openai-python/issues/1469, https://github.com/openai/openai-dotnet/issues/103), the
 * 2024-08-01-preview and later versions take it (https://github.com/spring-projects/spring-ai/issues/1724).
 */
const STREAM_OPTIONS_SINCE = "2024-08-01";

export type AzureDeployment = { model: string; kind: "chat" | "embeddings" | "images" };

export type AzureFake = {
  url: string;
  received: (FakeRequest & { form?: Record<string, string>; files?: { field: string; filename: string; bytes: number }[] })[];
  /** Answers for the next chat calls, first in first out; the default answer when empty. */
  answers: AzureAnswer[];
  chunkPauseMs: number;
  close: () => Promise<void>;
};

function invalidRequest(message: string, param: string | null = null) {
  return { error: { message, type: "invalid_request_error", param, code: null } };
}

function sendJson(response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response
    .writeHead(status, { "content-type": "application/json", "apim-request-id": crypto.randomUUID(), ...headers })
    .end(JSON.stringify(body));
}

async function sendChatStream(
  response: http.ServerResponse,
  events: unknown[],
  cutAfter: number | undefined,
  pauseMs: number,
): Promise<void> {
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "apim-request-id": crypto.randomUUID() });
  for (const [index, event] of events.entries()) {
    if (cutAfter !== undefined && index >= cutAfter) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      response.destroy();
      return;
    }
    if (response.destroyed) return;
    response.write(`data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`);
    if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  response.end();
}

/** Reads a multipart body (images/edits) into its fields and the files' names and sizes. */
function readMultipart(
  request: FakeRequest,
): Promise<{ form: Record<string, string>; files: { field: string; filename: string; bytes: number }[] }> {
  return new Promise((resolve, reject) => {
    const form: Record<string, string> = {};
    const files: { field: string; filename: string; bytes: number }[] = [];
    const parser = busboy({ headers: request.headers });
    parser.on("field", (name, value) => (form[name] = value));
    parser.on("file", (field, stream, info) => {
      let bytes = 0;
      stream.on("data", (chunk: Buffer) => (bytes += chunk.length));
      stream.on("end", () => files.push({ field, filename: info.filename ?? "", bytes }));
    });
    parser.on("close", () => resolve({ form, files }));
    parser.on("error", reject);
    parser.end(request.raw);
  });
}

export async function startAzureFake(options: { apiKey: string; deployments: Record<string, AzureDeployment> }): Promise<AzureFake> {
  const upstream = await startFakeUpstream();
  const fake: AzureFake = { url: upstream.url, received: [], answers: [], chunkPauseMs: 0, close: () => upstream.close() };

  const handle = async (request: AzureFake["received"][number], response: http.ServerResponse): Promise<void> => {
    if (request.headers["api-key"] !== options.apiKey) return sendJson(response, 401, ACCESS_DENIED);
    request.authorized = true;
    const match = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings|images\/generations|images\/edits)$/.exec(request.path);
    if (!match || request.method !== "POST") return sendJson(response, 404, RESOURCE_NOT_FOUND);
    const version = request.query["api-version"];
    if (typeof version !== "string") return sendJson(response, 404, RESOURCE_NOT_FOUND);
    if (!AZURE_API_VERSIONS.includes(version)) return sendJson(response, 400, API_VERSION_UNSUPPORTED);
    const [, name, operation] = match;
    const deployment = options.deployments[name];
    if (!deployment) return sendJson(response, 404, DEPLOYMENT_NOT_FOUND);
    const wanted = operation === "chat/completions" ? "chat" : operation === "embeddings" ? "embeddings" : "images";
    if (deployment.kind !== wanted)
      return sendJson(
        response,
        400,
        azureError(
          "OperationNotSupported",
          `The ${operation.replace("/", "")} operation does not work with the specified model, ${deployment.model}. Please choose different model and try again.`,
        ),
      );

    if (operation === "images/edits") {
      if (!String(request.headers["content-type"]).startsWith("multipart/form-data"))
        return sendJson(response, 400, invalidRequest("Expected multipart/form-data for images/edits."));
      const { form, files } = await readMultipart(request);
      request.form = form;
      request.files = files;
      if (!form.prompt) return sendJson(response, 400, invalidRequest("'prompt' is a required property", "prompt"));
      if (!files.some((file) => file.field === "image" || file.field === "image[]"))
        return sendJson(response, 400, invalidRequest("'image' is a required property", "image"));
      return sendJson(response, 200, imageAnswer(Number(form.n ?? 1), { input_tokens: 1093, output_tokens: 4160 }));
    }
    const body = request.body;
    if (!body || typeof body !== "object")
      return sendJson(response, 400, invalidRequest("We could not parse the JSON body of your request."));

    if (operation === "images/generations") {
      if (typeof body.prompt !== "string" || !body.prompt)
        return sendJson(response, 400, invalidRequest("'prompt' is a required property", "prompt"));
      return sendJson(response, 200, imageAnswer(body.n ?? 1, { input_tokens: 37, output_tokens: 4160 }));
    }
    if (operation === "embeddings") {
      const inputs: unknown[] = Array.isArray(body.input) ? body.input : [body.input];
      if (body.input === undefined || inputs.some((input) => typeof input !== "string"))
        return sendJson(response, 400, invalidRequest("'input' is a required property", "input"));
      const dimensions = body.dimensions ?? 1536;
      const promptTokens = inputs.reduce<number>((sum, input) => sum + Math.ceil(String(input).length / 4) + 3, 0);
      return sendJson(response, 200, {
        data: inputs.map((input, index) => {
          const values = embeddingOf(String(input), dimensions);
          return { embedding: body.encoding_format === "base64" ? embeddingBase64(values) : values, index, object: "embedding" };
        }),
        model: deployment.model,
        object: "list",
        usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
      });
    }

    if (!Array.isArray(body.messages) || body.messages.length === 0)
      return sendJson(response, 400, invalidRequest("'messages' is a required property", "messages"));
    if (body.stream_options !== undefined && body.stream !== true)
      return sendJson(
        response,
        400,
        invalidRequest("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options"),
      );
    if (body.stream_options !== undefined && version.slice(0, 10) < STREAM_OPTIONS_SINCE)
      return sendJson(response, 400, invalidRequest("Unrecognized request argument supplied: stream_options"));
    const answer = fake.answers.shift() ?? {};
    if (answer.error) return sendJson(response, answer.error.status, answer.error.body, answer.error.headers);
    if (answer.filterPrompt) return sendJson(response, 400, promptFiltered());
    const id = `chatcmpl-${crypto.randomUUID().replace(/-/g, "").slice(0, 29)}`;
    if (body.stream !== true) return sendJson(response, 200, chatCompletion(answer, deployment.model, id));
    const events = chatChunks(answer, deployment.model, id, body.stream_options?.include_usage === true);
    return sendChatStream(response, events, answer.cutAfterChunks, fake.chunkPauseMs);
  };

  upstream.respond = (received, response) => {
    const request = recordRequest(received.method, received.path, received.headers, received.raw);
    fake.received.push(request);
    return handle(request, response);
  };
  return fake;
}
