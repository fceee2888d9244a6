// The Gemini wire format shared by the Gemini API fake (tests/fakes/gemini.ts) and the Vertex AI fake's Google
// publisher (tests/fakes/vertex.ts): request checks, scripted answers, and the answer bodies and stream chunks.
// Shapes follow Google's reference pages:
//   https://ai.google.dev/api/generate-content (GenerateContentResponse, UsageMetadata, streamGenerateContent)
//   https://ai.google.dev/gemini-api/docs/function-calling (functionCall / functionResponse parts)
//   https://ai.google.dev/gemini-api/docs/troubleshooting (error statuses and their bodies)
//   https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/GenerateContentResponse (Vertex's
//     createTime and usageMetadata.trafficType)
// Usage numbers are deliberately non-round so that a ledger check means something.
import type http from "node:http";
import type { ParsedUrlQuery } from "node:querystring";

/** One request as a fake saw it. `path` has no query; `query` holds it parsed. */
export type FakeRequest = {
  method: string;
  path: string;
  query: ParsedUrlQuery;
  headers: http.IncomingHttpHeaders;
  body: any;
  raw: Buffer;
  /** True when the request's credential was checked and accepted. */
  authorized: boolean;
};

export function recordRequest(method: string, url: string, headers: http.IncomingHttpHeaders, raw: Buffer): FakeRequest {
  const parsed = new URL(url, "http://fake.invalid");
  const query: ParsedUrlQuery = {};
  for (const [name, value] of parsed.searchParams) {
    const previous = query[name];
    query[name] = previous === undefined ? value : ([] as string[]).concat(previous, value);
  }
  let body: unknown = null;
  try {
    body = raw.length ? JSON.parse(raw.toString("utf8")) : null;
  } catch {
    body = null;
  }
  return { method, path: decodeURIComponent(parsed.pathname), query, headers, body, raw, authorized: false };
}

export type GeminiUsage = {
  promptTokenCount: number;
  candidatesTokenCount: number;
  /** Billed as output, not part of candidatesTokenCount. */
  thoughtsTokenCount?: number;
  /** Part of promptTokenCount, billed at the cache rate. */
  cachedContentTokenCount?: number;
};

export const DEFAULT_GEMINI_USAGE: GeminiUsage = {
  promptTokenCount: 1237,
  candidatesTokenCount: 389,
  thoughtsTokenCount: 211,
  cachedContentTokenCount: 418,
};

export type SafetyRating = { category: string; probability: string; blocked?: boolean };

/** What the next generate call answers. Every field is optional; the default is a short text answer. */
export type GeminiAnswer = {
  /** Text pieces: one stream chunk each, joined in a plain answer. */
  text?: string[];
  functionCalls?: { name: string; args: Record<string, unknown> }[];
  /** STOP by default; SAFETY blocks the candidate (no content, safetyRatings say why). */
  finishReason?: "STOP" | "MAX_TOKENS" | "SAFETY" | "RECITATION" | "OTHER";
  safetyRatings?: SafetyRating[];
  /** null: no usageMetadata at all (an upstream that forgets it). */
  usage?: GeminiUsage | null;
  /** In a stream, send this many chunks then drop the connection. */
  cutAfterChunks?: number;
  /** The prompt itself is blocked: no candidates, promptFeedback.blockReason says why, only prompt tokens counted. */
  blockPrompt?: "SAFETY" | "OTHER" | "BLOCKLIST" | "PROHIBITED_CONTENT";
  /** Answer with this error instead (see googleError and quotaExhausted). */
  error?: { status: number; body: unknown };
};

export function googleError(code: number, status: string, message: string, details?: unknown[]) {
  return { error: { code, message, status, ...(details ? { details } : {}) } };
}

/** The 429 Google answers when a quota is exhausted (https://ai.google.dev/gemini-api/docs/rate-limits). */
export function quotaExhausted(): { status: number; body: unknown } {
  return {
    status: 429,
    body: googleError(
      429,
      "RESOURCE_EXHAUSTED",
      "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
      [
        {
          "@type": "type.googleapis.com/google.rpc.QuotaFailure",
          violations: [
            {
              quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
              quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
            },
          ],
        },
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "37s" },
      ],
    ),
  };
}

export const DANGEROUS_CONTENT_BLOCKED: SafetyRating[] = [
  { category: "HARM_CATEGORY_HATE_SPEECH", probability: "NEGLIGIBLE" },
  { category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true },
  { category: "HARM_CATEGORY_HARASSMENT", probability: "NEGLIGIBLE" },
  { category: "HARM_CATEGORY_SEXUALLY_EXPLICIT", probability: "NEGLIGIBLE" },
];

const PART_KINDS = ["text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult"];

/**
 * Checks a GenerateContentRequest as Google does and returns the INVALID_ARGUMENT message, or null when it is
 * acceptable. The Gemini API lets a turn omit its role; Vertex AI requires a role on every turn (`requireRole`).
 */
export function checkGenerateRequest(body: any, requireRole: boolean): string | null {
  if (!body || typeof body !== "object") return "Invalid JSON payload received. Expected an object.";
  const contents = body.contents;
  if (!Array.isArray(contents) || contents.length === 0) return "* GenerateContentRequest.contents: contents is not specified\n";
  for (const [index, content] of contents.entries()) {
    // The Gemini API's Content.role is optional (https://ai.google.dev/api/caching#Content); Vertex requires it
    // and answers a missing one as an invalid one (https://github.com/BerriAI/litellm/issues/32731).
    const missing = content.role === undefined || content.role === "";
    if ((missing && requireRole) || (!missing && content.role !== "user" && content.role !== "model"))
      return "Please use a valid role: user, model.";
    if (!Array.isArray(content.parts) || content.parts.length === 0)
      return `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.\n`;
    for (const part of content.parts) {
      if (!PART_KINDS.some((kind) => part && part[kind] !== undefined))
        return `* GenerateContentRequest.contents[${index}].parts: a part must have one of ${PART_KINDS.join(", ")}.\n`;
    }
    const responses = content.parts.filter((part: any) => part.functionResponse).length;
    if (responses) {
      const previous = contents[index - 1];
      const calls = previous?.role === "model" ? previous.parts.filter((part: any) => part.functionCall).length : 0;
      if (!calls) return "Please ensure that function response turn comes immediately after a function call turn.";
      if (calls !== responses)
        return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
    }
  }
  if (body.systemInstruction?.role && body.systemInstruction.role !== "user" && body.systemInstruction.role !== "system")
    return "Please use a valid role: user, model.";
  return null;
}

function usageMetadata(usage: GeminiUsage) {
  const thoughts = usage.thoughtsTokenCount ?? 0;
  return {
    promptTokenCount: usage.promptTokenCount,
    // Proto3 JSON leaves zeros out.
    ...(usage.candidatesTokenCount ? { candidatesTokenCount: usage.candidatesTokenCount } : {}),
    totalTokenCount: usage.promptTokenCount + usage.candidatesTokenCount + thoughts,
    ...(usage.cachedContentTokenCount ? { cachedContentTokenCount: usage.cachedContentTokenCount } : {}),
    promptTokensDetails: [{ modality: "TEXT", tokenCount: usage.promptTokenCount }],
    ...(usage.cachedContentTokenCount ? { cacheTokensDetails: [{ modality: "TEXT", tokenCount: usage.cachedContentTokenCount }] } : {}),
    ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
  };
}

/** Which service answers: the bodies are the same, the metadata around them differs a little. */
export type GeminiFlavour = "gemini-api" | "vertex";

/**
 * What an intermediate stream chunk carries. The Gemini API sends the prompt count only (a recorded trace of a
 * generativelanguage.googleapis.com stream: https://nextdocs.ai/bielwenass/adk-go/80464); Vertex AI sends only its
 * traffic type, every count coming with the last chunk (a recorded Vertex stream:
 * https://alm.pragmatismo.com.br/GeneralBots/gb/raw/commit/144c4b0b79e3ada32911f430eda31de3a6fe84fc/out.txt).
 */
function partialUsage(usage: GeminiUsage, flavour: GeminiFlavour) {
  if (flavour === "vertex") return { trafficType: "ON_DEMAND" };
  return {
    promptTokenCount: usage.promptTokenCount,
    totalTokenCount: usage.promptTokenCount,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: usage.promptTokenCount }],
  };
}

function finalUsage(usage: GeminiUsage, flavour: GeminiFlavour) {
  return flavour === "vertex" ? { ...usageMetadata(usage), trafficType: "ON_DEMAND" } : usageMetadata(usage);
}

/** Vertex stamps each answer with the time the request was taken. */
function envelope(model: string, responseId: string, flavour: GeminiFlavour) {
  return flavour === "vertex"
    ? { modelVersion: model, createTime: new Date().toISOString(), responseId }
    : { modelVersion: model, responseId };
}

function candidate(parts: unknown[] | null, answer: GeminiAnswer, final: boolean) {
  const finishReason = answer.finishReason ?? "STOP";
  return {
    ...(parts ? { content: { parts, role: "model" } } : {}),
    ...(final ? { finishReason } : {}),
    ...(final && (answer.safetyRatings || finishReason === "SAFETY")
      ? { safetyRatings: answer.safetyRatings ?? DANGEROUS_CONTENT_BLOCKED }
      : {}),
    index: 0,
  };
}

function answerParts(answer: GeminiAnswer): unknown[] {
  if (answer.functionCalls) return answer.functionCalls.map((call) => ({ functionCall: { name: call.name, args: call.args } }));
  return [{ text: (answer.text ?? ["The sky is blue because of Rayleigh scattering."]).join("") }];
}

function usageOf(answer: GeminiAnswer): GeminiUsage | null {
  return answer.usage === undefined ? DEFAULT_GEMINI_USAGE : answer.usage;
}

/** A whole GenerateContentResponse, as `:generateContent` answers. */
/** A blocked prompt's answer (https://ai.google.dev/api/generate-content#PromptFeedback), whole or as the only chunk. */
function blockedPrompt(answer: GeminiAnswer, model: string, responseId: string, flavour: GeminiFlavour) {
  const usage = usageOf(answer);
  return {
    promptFeedback: { blockReason: answer.blockPrompt, safetyRatings: answer.safetyRatings ?? DANGEROUS_CONTENT_BLOCKED },
    ...(usage ? { usageMetadata: finalUsage({ promptTokenCount: usage.promptTokenCount, candidatesTokenCount: 0 }, flavour) } : {}),
    ...envelope(model, responseId, flavour),
  };
}

export function generateResponse(answer: GeminiAnswer, model: string, responseId: string, flavour: GeminiFlavour = "gemini-api") {
  if (answer.blockPrompt) return blockedPrompt(answer, model, responseId, flavour);
  const usage = usageOf(answer);
  const blocked = answer.finishReason === "SAFETY";
  return {
    candidates: [candidate(blocked ? null : answerParts(answer), answer, true)],
    ...(usage ? { usageMetadata: finalUsage(usage, flavour) } : {}),
    ...envelope(model, responseId, flavour),
  };
}

/**
 * The chunks of `:streamGenerateContent`: one per text piece, each with the prompt-only usage; the last one carries
 * finishReason and the whole usage. Function calls arrive whole in one chunk.
 */
export function streamChunks(answer: GeminiAnswer, model: string, responseId: string, flavour: GeminiFlavour = "gemini-api") {
  if (answer.blockPrompt) return [blockedPrompt(answer, model, responseId, flavour)];
  const usage = usageOf(answer);
  const blocked = answer.finishReason === "SAFETY";
  const pieces: (unknown[] | null)[] = blocked
    ? [null]
    : answer.functionCalls
      ? [answerParts(answer)]
      : (answer.text ?? ["The sky is blue ", "because of Rayleigh ", "scattering."]).map((text) => [{ text }]);
  return pieces.map((parts, index) => {
    const final = index === pieces.length - 1;
    return {
      candidates: [candidate(parts, answer, final)],
      ...(usage ? { usageMetadata: final ? finalUsage(usage, flavour) : partialUsage(usage, flavour) } : {}),
      ...envelope(model, responseId, flavour),
    };
  });
}

export function sendGoogleJson(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json; charset=UTF-8" }).end(JSON.stringify(body));
}

/** Google's errors come pretty-printed. */
export function sendGoogleError(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json; charset=UTF-8" }).end(JSON.stringify(body, null, 2));
}

/** Answers a generate call, plain or streamed (SSE with alt=sse, else one JSON array written as it goes). */
export async function sendGenerate(
  response: http.ServerResponse,
  answer: GeminiAnswer,
  model: string,
  mode: "plain" | "sse" | "array",
  pauseMs: number,
  flavour: GeminiFlavour = "gemini-api",
): Promise<void> {
  const responseId = `fake-${Math.random().toString(36).slice(2, 12)}`;
  if (answer.error) return sendGoogleError(response, answer.error.status, answer.error.body);
  if (mode === "plain") {
    response
      .writeHead(200, { "content-type": "application/json; charset=UTF-8" })
      .end(JSON.stringify(generateResponse(answer, model, responseId, flavour)));
    return;
  }
  const chunks = streamChunks(answer, model, responseId, flavour);
  response.writeHead(200, { "content-type": mode === "sse" ? "text/event-stream" : "application/json; charset=UTF-8" });
  if (mode === "array") response.write("[");
  for (const [index, chunk] of chunks.entries()) {
    if (answer.cutAfterChunks !== undefined && index >= answer.cutAfterChunks) {
      // Let what was written reach the client before the connection drops.
      await new Promise((resolve) => setTimeout(resolve, 25));
      response.destroy();
      return;
    }
    if (response.destroyed) return;
    const json = JSON.stringify(chunk);
    response.write(mode === "sse" ? `data: ${json}\r\n\r\n` : `${index ? ",\r\n" : ""}${json}`);
    if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  response.end(mode === "array" ? "]" : undefined);
}
