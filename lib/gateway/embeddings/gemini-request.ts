// The body of Gemini's :batchEmbedContents (`{requests: [EmbedContentRequest]}`) and :embedContent (one
// EmbedContentRequest: `{model?, content: {parts: [{text}]}, taskType?, title?, outputDimensionality?}`), checked
// field by field with /v1/embeddings' limits (lib/gateway/embeddings/request.ts): each refusal a 400 naming the field
// as Google does (`requests[3].content`), before anything is reserved. A content's text parts are one input, joined by
// line breaks (only text can be embedded here); its tokens are counted whole, as /v1/embeddings' are. Every request of
// a batch asks for one vector size (the gateway makes a batch's vectors at one size). Large bodies are prepared on a
// body worker (lib/gateway/text-request.ts, kinds "geminiEmbed" and "geminiEmbedOne").
import { z } from "zod";
import { GatewayError } from "@/lib/platform/errors";
import { newCountStats } from "@/lib/money/tokens";
import type { EmbeddingTask } from "@/lib/providers/embeddings-types";
import { defineBodyKind } from "@/lib/gateway/text-request";
import { countInputs, MAX_EMBEDDING_INPUTS, type InputNames } from "./request";

export type GeminiEmbedMethod = "batchEmbedContents" | "embedContent";

/** Google's task types (https://ai.google.dev/api/embeddings#tasktype). */
export const TASK_TYPES = [
  "TASK_TYPE_UNSPECIFIED",
  "RETRIEVAL_QUERY",
  "RETRIEVAL_DOCUMENT",
  "SEMANTIC_SIMILARITY",
  "CLASSIFICATION",
  "CLUSTERING",
  "QUESTION_ANSWERING",
  "FACT_VERIFICATION",
  "CODE_RETRIEVAL_QUERY",
] as const;

const embedContentRequest = z.object({
  model: z.string().optional().describe("`models/<model>`, as in the path (the path's model when left out)"),
  content: z.object({ role: z.string().optional(), parts: z.array(z.object({ text: z.string() })).min(1) }),
  taskType: z.enum(TASK_TYPES).optional(),
  title: z.string().optional(),
  outputDimensionality: z.number().int().min(1).optional(),
});

/** The bodies as the OpenAPI document describes them; parseGeminiEmbed is what checks them. */
export const geminiEmbedContentRequestSchema = embedContentRequest;
export const geminiBatchEmbedRequestSchema = z.object({
  requests: z.array(embedContentRequest).min(1).max(MAX_EMBEDDING_INPUTS),
});

export type GeminiEmbedRequest = {
  /** Each request's `model` without `models/`, undefined where it named none: the handler holds them to the path's. */
  models: (string | undefined)[];
  input: { kind: "text"; texts: string[] };
  /** Each request's `taskType` and `title`, when any request sent one. */
  tasks: (EmbeddingTask | undefined)[] | undefined;
  dimensions: number | undefined;
  names: InputNames & { dimensions: string };
};

/** The fields of one EmbedContentRequest; Google's JSON takes the proto's snake_case names too. */
const FIELDS = ["model", "content", "taskType", "title", "outputDimensionality"];
const SNAKE: Record<string, string> = { task_type: "taskType", output_dimensionality: "outputDimensionality" };

function refuse(param: string, message: string): GatewayError {
  return new GatewayError("invalid_request", message, { param });
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function shown(value: unknown): string {
  return String(JSON.stringify(value)).slice(0, 40);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The text of `content` (at `param`): its text parts, joined by line breaks. */
function textOf(content: unknown, param: string): string {
  if (content === undefined || content === null) throw refuse(param, `Missing '${param}': the text to embed, as {parts: [{text}]}`);
  if (!isObject(content)) throw refuse(param, `Invalid '${param}': expected a Content, {parts: [{text}]}; got ${kindOf(content)}`);
  for (const field of Object.keys(content)) {
    if (field !== "parts" && field !== "role")
      throw refuse(`${param}.${field}`, `Unknown field '${param}.${field.slice(0, 100)}': a Content holds 'parts' and 'role'`);
  }
  if (content.role !== undefined && typeof content.role !== "string")
    throw refuse(`${param}.role`, `Invalid '${param}.role': expected a string; got ${kindOf(content.role)}`);
  const { parts } = content;
  if (!Array.isArray(parts) || !parts.length)
    throw refuse(`${param}.parts`, `Invalid '${param}.parts': expected a list of at least one part, {text}; got ${kindOf(parts)}`);
  const texts: string[] = [];
  for (const [index, part] of parts.entries()) {
    const at = `${param}.parts[${index}]`;
    if (!isObject(part)) throw refuse(at, `Invalid '${at}': expected a part, {text}; got ${kindOf(part)}`);
    const other = Object.keys(part).find((field) => field !== "text");
    if (other !== undefined) throw refuse(at, `Invalid '${at}': only text parts can be embedded here; got '${other.slice(0, 100)}'`);
    if (typeof part.text !== "string") throw refuse(`${at}.text`, `Invalid '${at}.text': expected a string; got ${kindOf(part.text)}`);
    texts.push(part.text);
  }
  if (texts.every((text) => !text)) throw refuse(param, `Invalid '${param}': an empty text cannot be embedded`);
  return texts.join("\n");
}

type One = { model: string | undefined; text: string; task: EmbeddingTask | undefined; dimensions: number | undefined };

/** One EmbedContentRequest, its fields named from `at` (`requests[3].`, or nothing for :embedContent). */
function parseOne(raw: Record<string, unknown>, at: string, endpoint: string): One {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const field = SNAKE[name] ?? name;
    if (!FIELDS.includes(field))
      throw refuse(
        `${at}${name}`,
        `Unknown field '${at}${name.slice(0, 100)}': ${endpoint} takes ${FIELDS.map((known) => `'${at}${known}'`).join(", ")}`,
      );
    fields[field] = value;
  }
  const { model, taskType, title } = fields;
  if (model !== undefined && (typeof model !== "string" || !model))
    throw refuse(`${at}model`, `Invalid '${at}model': expected a model name, 'models/<model>'; got ${kindOf(model)}`);
  const text = textOf(fields.content, `${at}content`);
  if (taskType !== undefined && !(TASK_TYPES as readonly unknown[]).includes(taskType))
    throw refuse(`${at}taskType`, `Invalid '${at}taskType': one of ${TASK_TYPES.join(", ")}; got ${shown(taskType)}`);
  if (title !== undefined && typeof title !== "string")
    throw refuse(`${at}title`, `Invalid '${at}title': expected a string; got ${kindOf(title)}`);
  const dimensions = fields.outputDimensionality ?? undefined;
  if (dimensions !== undefined && !(typeof dimensions === "number" && Number.isSafeInteger(dimensions) && dimensions >= 1))
    throw refuse(
      `${at}outputDimensionality`,
      `Invalid '${at}outputDimensionality': a whole number from 1 to the model's vector size; got ${shown(dimensions)}`,
    );
  const task = taskType !== undefined || title !== undefined ? { taskType: taskType as string | undefined, title } : undefined;
  return { model: model?.replace(/^models\//, ""), text, task, dimensions: dimensions as number | undefined };
}

/** The body of `method`, checked (the model's own limits, the size against its size, are the core's). */
export function parseGeminiEmbed(raw: Record<string, unknown>, method: GeminiEmbedMethod): GeminiEmbedRequest {
  const endpoint = `:${method}`;
  if (method === "embedContent") {
    const one = parseOne(raw, "", endpoint);
    return {
      models: [one.model],
      input: { kind: "text", texts: [one.text] },
      tasks: one.task ? [one.task] : undefined,
      dimensions: one.dimensions,
      names: { item: () => "content", all: "content", dimensions: "outputDimensionality" },
    };
  }
  for (const field of Object.keys(raw)) {
    if (field !== "requests")
      throw refuse(field, `Unknown field '${field.slice(0, 100)}': ${endpoint} takes 'requests', a list of EmbedContentRequest`);
  }
  const { requests } = raw;
  if (requests === undefined || requests === null)
    throw refuse("requests", "Missing 'requests': a list of EmbedContentRequest, {model, content: {parts: [{text}]}}");
  if (!Array.isArray(requests)) throw refuse("requests", `Invalid 'requests': expected a list; got ${kindOf(requests)}`);
  if (!requests.length) throw refuse("requests", "Invalid 'requests': an empty list; give at least one request");
  if (requests.length > MAX_EMBEDDING_INPUTS)
    throw refuse(
      "requests",
      `Invalid 'requests': at most ${MAX_EMBEDDING_INPUTS} requests per batch; got ${requests.length.toLocaleString("en")}`,
    );
  const ones: One[] = [];
  for (const [index, request] of requests.entries()) {
    const at = `requests[${index}]`;
    if (!isObject(request)) throw refuse(at, `Invalid '${at}': expected an EmbedContentRequest; got ${kindOf(request)}`);
    const one = parseOne(request, `${at}.`, endpoint);
    const first = index > 0 ? ones[0]!.dimensions : one.dimensions;
    if (one.dimensions !== first)
      throw refuse(
        `${at}.outputDimensionality`,
        `Invalid '${at}.outputDimensionality': every request of a batch must ask for the same vector size; requests[0] asks for ${first ?? "the model's own"}, this one for ${one.dimensions ?? "the model's own"}`,
      );
    ones.push(one);
  }
  const tasks = ones.some((one) => one.task) ? ones.map((one) => one.task) : undefined;
  return {
    models: ones.map((one) => one.model),
    input: { kind: "text", texts: ones.map((one) => one.text) },
    tasks,
    dimensions: ones[0]!.dimensions,
    names: { item: (index) => `requests[${index}].content`, all: "requests", dimensions: "requests[0].outputDimensionality" },
  };
}

function prepareGeminiEmbed(raw: Record<string, unknown>, method: GeminiEmbedMethod) {
  const request = parseGeminiEmbed(raw, method);
  const inputCounts = countInputs(request.input, request.names);
  const inputTokens = inputCounts.reduce((sum, count) => sum + count, 0);
  return { body: raw, inputTokens, stats: newCountStats(), model: "", inputCounts };
}

/** Such bodies as lib/gateway/text-request.ts reads them: fields checked and inputs counted. A worker imports this
 *  module for a large body. */
export const geminiBatchEmbedBody = defineBodyKind(import.meta.url, "geminiBatchEmbedBody", (raw) =>
  prepareGeminiEmbed(raw, "batchEmbedContents"),
);
export const geminiEmbedOneBody = defineBodyKind(import.meta.url, "geminiEmbedOneBody", (raw) => prepareGeminiEmbed(raw, "embedContent"));
