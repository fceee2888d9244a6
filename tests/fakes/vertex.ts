// A fake of Vertex AI's prediction endpoint ({region}-aiplatform.googleapis.com) with its own token endpoint at
// `/token`, which the service account it makes names as token_uri (tests/fakes/google-token.ts). It records every
// request and checks it as Vertex does: `Authorization: Bearer` must be a token `/token` issued and not expired, for
// the project in the path; Gemini bodies (tests/fakes/gemini-wire.ts) need a role on every turn; Claude bodies
// (tests/fakes/vertex-wire.ts) carry anthropic_version and no model. Errors are Google's shape
// (https://cloud.google.com/apis/design/errors) except Claude's own request errors, which keep Anthropic's shape.
import type http from "node:http";
import { startFakeUpstream } from "../helpers/fake-upstream.ts";
import {
  checkGenerateRequest,
  type FakeRequest,
  type GeminiAnswer,
  googleError,
  recordRequest,
  sendGenerate,
  sendGoogleError,
  sendGoogleJson,
} from "./gemini-wire.ts";
import { createTokenIssuer, makeServiceAccount, type ServiceAccountJson, type TokenIssuer } from "./google-token.ts";
import { anthropicError, type ClaudeAnswer, checkClaudeRequest, claudeEvents, claudeMessage } from "./vertex-wire.ts";
import { checkEmbeddingRequest, embeddingAnswer, VERTEX_EMBEDDING_MODELS } from "./vertex-embeddings.ts";

export type VertexFake = {
  url: string;
  /** The token endpoint's URL (the service account's token_uri). */
  tokenUri: string;
  /** A service account of `project` whose key the token endpoint trusts. */
  serviceAccount: ServiceAccountJson;
  tokens: TokenIssuer;
  received: FakeRequest[];
  /** Answers for the next Gemini (publishers/google) calls, first in first out. */
  geminiAnswers: GeminiAnswer[];
  /** Answers for the next Claude (publishers/anthropic) calls, first in first out. */
  claudeAnswers: ClaudeAnswer[];
  chunkPauseMs: number;
  close: () => Promise<void>;
};

export const VERTEX_LOCATIONS = ["global", "us-central1", "us-east5", "europe-west1", "europe-west4", "asia-southeast1"];

const AUTH_HELP =
  "Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.";

function unauthenticated(message: string, reason: string) {
  return googleError(401, "UNAUTHENTICATED", message, [
    {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason,
      domain: "googleapis.com",
      metadata: { service: "aiplatform.googleapis.com", method: "google.cloud.aiplatform.v1.PredictionService.GenerateContent" },
    },
  ]);
}

async function sendClaude(
  response: http.ServerResponse,
  answer: ClaudeAnswer,
  model: string,
  stream: boolean,
  pauseMs: number,
): Promise<void> {
  if (answer.error) return sendGoogleJson(response, answer.error.status, answer.error.body);
  if (!stream) return sendGoogleJson(response, 200, claudeMessage(answer, model));
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  for (const [index, event] of claudeEvents(answer, model).entries()) {
    if (answer.cutAfterEvents !== undefined && index >= answer.cutAfterEvents) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      response.destroy();
      return;
    }
    if (response.destroyed) return;
    response.write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
    if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  response.end();
}

export async function startVertexFake(
  options: { project?: string; geminiModels?: string[]; claudeModels?: string[] } = {},
): Promise<VertexFake> {
  const project = options.project ?? "gateway-tests-417203";
  const geminiModels = options.geminiModels ?? ["gemini-2.5-pro", "gemini-2.5-flash"];
  const claudeModels = options.claudeModels ?? ["claude-sonnet-4-5@20250929", "claude-opus-4-1@20250805", "claude-3-5-haiku@20241022"];
  const upstream = await startFakeUpstream();
  const tokenUri = `${upstream.url}/token`;
  const account = makeServiceAccount({ projectId: project, tokenUri });
  const tokens = createTokenIssuer();
  await tokens.trust(account);
  const fake: VertexFake = {
    url: upstream.url,
    tokenUri,
    serviceAccount: account.json,
    tokens,
    received: [],
    geminiAnswers: [],
    claudeAnswers: [],
    chunkPauseMs: 0,
    close: () => upstream.close(),
  };

  const handle = async (request: FakeRequest, response: http.ServerResponse): Promise<void> => {
    if (request.path === "/token" && request.method === "POST") {
      request.authorized = true;
      return tokens.handle(tokenUri, request.raw, request.headers, response);
    }
    const authorization = request.headers.authorization;
    if (typeof authorization !== "string" || !/^Bearer\s+\S/i.test(authorization))
      return sendGoogleError(
        response,
        401,
        unauthenticated(`Request is missing required authentication credential. ${AUTH_HELP}`, "CREDENTIALS_MISSING"),
      );
    const found = tokens.lookup(authorization.replace(/^Bearer\s+/i, "").trim());
    if (!found)
      return sendGoogleError(
        response,
        401,
        unauthenticated(`Request had invalid authentication credentials. ${AUTH_HELP}`, "ACCESS_TOKEN_TYPE_UNSUPPORTED"),
      );
    if (found.expired)
      return sendGoogleError(
        response,
        401,
        unauthenticated(`Request had invalid authentication credentials. ${AUTH_HELP}`, "ACCESS_TOKEN_EXPIRED"),
      );
    request.authorized = true;

    const match =
      /^\/(v1|v1beta1)\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/.exec(
        request.path,
      );
    if (request.method !== "POST" || !match)
      return sendGoogleError(
        response,
        404,
        googleError(404, "NOT_FOUND", `The requested URL ${request.path} was not found on this server.`),
      );
    const [, , pathProject, location, publisher, model, method] = match;
    const resource = `projects/${pathProject}/locations/${location}/publishers/${publisher}/models/${model}`;
    if (pathProject !== found.token.projectId)
      return sendGoogleError(
        response,
        403,
        googleError(
          403,
          "PERMISSION_DENIED",
          `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/${resource}' (or it may not exist).`,
        ),
      );
    if (!VERTEX_LOCATIONS.includes(location))
      return sendGoogleError(response, 400, googleError(400, "INVALID_ARGUMENT", `Unsupported location: ${location}.`));
    // Text embedding models answer `:predict` (tests/fakes/vertex-embeddings.ts).
    const embedding = publisher === "google" && model in VERTEX_EMBEDDING_MODELS;
    const known = publisher === "google" ? [...geminiModels, ...Object.keys(VERTEX_EMBEDDING_MODELS)] : claudeModels;
    const methods = embedding
      ? ["predict"]
      : publisher === "google"
        ? ["generateContent", "streamGenerateContent"]
        : ["rawPredict", "streamRawPredict"];
    if (!known.includes(model) || !methods.includes(method))
      return sendGoogleError(
        response,
        404,
        googleError(404, "NOT_FOUND", `Publisher Model \`${resource}\` was not found or your project does not have access to it.`),
      );

    if (publisher === "google") {
      if (request.body === null)
        return sendGoogleError(
          response,
          400,
          googleError(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unexpected end of string."),
        );
      if (embedding) {
        const problem = checkEmbeddingRequest(model, request.body);
        if (problem) return sendGoogleError(response, 400, googleError(400, "INVALID_ARGUMENT", problem));
        return sendGoogleJson(response, 200, embeddingAnswer(model, request.body));
      }
      const problem = checkGenerateRequest(request.body, true);
      // Vertex wraps a request problem in its own sentence (as relayed in
      // https://github.com/gethnet/litellm-connector-copilot/issues/64).
      if (problem)
        return sendGoogleError(
          response,
          400,
          googleError(
            400,
            "INVALID_ARGUMENT",
            `Unable to submit request because ${problem}. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini`,
          ),
        );
      const mode = method === "generateContent" ? "plain" : request.query.alt === "sse" ? "sse" : "array";
      return sendGenerate(response, fake.geminiAnswers.shift() ?? {}, model, mode, fake.chunkPauseMs, "vertex");
    }
    const problem = checkClaudeRequest(request.body);
    if (problem) return sendGoogleJson(response, problem.status, anthropicError(problem.type, problem.message));
    // Vertex names the model in its answers with a dash where the path has the @ (claude-sonnet-4-5-20250929).
    return sendClaude(
      response,
      fake.claudeAnswers.shift() ?? {},
      model.replace("@", "-"),
      method === "streamRawPredict",
      fake.chunkPauseMs,
    );
  };

  upstream.respond = (received, response) => {
    const request = recordRequest(received.method, received.path, received.headers, received.raw);
    fake.received.push(request);
    return handle(request, response);
  };
  return fake;
}

/** The 429 Vertex answers when a base model's online prediction quota is spent. */
export function vertexQuotaExhausted(model: string): { status: number; body: unknown } {
  return {
    status: 429,
    body: googleError(
      429,
      "RESOURCE_EXHAUSTED",
      `Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base model: ${model}. Please submit a quota increase request. https://cloud.google.com/vertex-ai/docs/generative-ai/quotas-genai.`,
    ),
  };
}
