// Gemini to Chat Completions, for a Gemini client: a GenerateContentRequest sent to the gateway's /v1beta endpoints
// (docs/api.md) as the Chat request it is served as over any text channel (Chat is the hub, lib/dialects/README.md).
// Pure. The answer goes back through lib/dialects/gemini/chat-to-gemini-response.ts.
//   https://ai.google.dev/api/generate-content (the request), https://ai.google.dev/api/caching#Content (parts),
//   https://ai.google.dev/gemini-api/docs/function-calling, https://ai.google.dev/api/caching#Schema
import { invalid } from "@/lib/dialects/convert/common";
import type { ChatRequestBody, ChatRequestPart, ChatToolCall } from "@/lib/dialects/chat/wire";
import { THINKING_BUDGETS } from "./chat-to-gemini";
import type { GeminiEndpointRequest, GeminiInboundPart } from "./wire";

type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatRequestPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** The Chat request a Gemini request becomes: Chat's own fields, with the ones ChatRequestBody does not name. */
export type ChatFromGemini = Omit<ChatRequestBody, "messages" | "response_format" | "max_tokens" | "max_completion_tokens"> & {
  messages: ChatMessage[];
  max_completion_tokens?: number;
  response_format?: { type: "json_object" } | { type: "json_schema"; json_schema: { name: string; schema: Record<string, unknown> } };
  reasoning_effort?: string;
  presence_penalty?: number;
  frequency_penalty?: number;
  seed?: number;
};

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Schema fields Google writes as strings (int64 in proto3 JSON) that JSON Schema wants as numbers. */
const NUMERIC_FIELDS = new Set(["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"]);

/**
 * Google's OpenAPI-subset Schema (`parameters`, `responseSchema`) as JSON Schema: upper-case types in lower case,
 * `nullable` as a `null` type, `example` as `examples`, int64 strings as numbers, and Google's `propertyOrdering` left
 * out. Everything else has the same name in both.
 */
export function googleSchemaToJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(googleSchemaToJsonSchema);
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [field, value] of Object.entries(schema)) {
    if (field === "nullable" || field === "propertyOrdering") continue;
    if (field === "type" && typeof value === "string") {
      if (value !== "TYPE_UNSPECIFIED") out.type = value.toLowerCase();
    } else if (field === "properties" && isObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, googleSchemaToJsonSchema(inner)]));
    } else if (field === "items" || field === "anyOf") {
      out[field] = googleSchemaToJsonSchema(value);
    } else if (field === "example") {
      out.examples = [value];
    } else if (NUMERIC_FIELDS.has(field) && typeof value === "string" && /^\d+$/.test(value)) {
      out[field] = Number(value);
    } else {
      out[field] = value;
    }
  }
  if (schema.nullable === true && typeof out.type === "string") out.type = [out.type, "null"];
  return out;
}

/** A file's inline data as a data URI. */
function dataUri(mimeType: string, data: string): string {
  return `data:${mimeType};base64,${data}`;
}

/** A user turn's part as a Chat content part; a 400 naming the part (`turn`.parts[`index`]) for a kind Chat has no
 *  place for. The name is written only then: a turn may hold 200,000 parts. */
function userPart(part: GeminiInboundPart, turn: string, index: number): ChatRequestPart {
  if (typeof part.text === "string") return { type: "text", text: part.text };
  const param = `${turn}.parts[${index}]`;
  if (part.inlineData) {
    const mimeType = part.inlineData.mimeType.toLowerCase();
    if (mimeType.startsWith("image/")) return { type: "image_url", image_url: { url: dataUri(mimeType, part.inlineData.data) } };
    const extension = mimeType.split("/")[1]?.split(/[+;]/)[0] || "bin";
    return { type: "file", file: { filename: `file.${extension}`, file_data: dataUri(mimeType, part.inlineData.data) } };
  }
  if (part.fileData) {
    const mimeType = part.fileData.mimeType?.toLowerCase();
    // The upstream fetches an http(s) image itself; the gateway never does (SECURITY.md, rule 21).
    if (/^https?:\/\//i.test(part.fileData.fileUri) && (mimeType === undefined || mimeType.startsWith("image/")))
      return { type: "image_url", image_url: { url: part.fileData.fileUri } };
    throw invalid("fileData must name an image by an http(s) URL; send other files inline (inlineData).", `${param}.fileData`);
  }
  throw unsupportedPart(part, param);
}

function unsupportedPart(part: GeminiInboundPart, param: string): Error {
  const kind = Object.keys(part).find((key) => key !== "thought" && key !== "thoughtSignature") ?? "empty";
  return invalid(
    `Parts of kind "${kind}" are not supported here: a part holds text, inlineData, fileData, functionCall or functionResponse.`,
    param,
  );
}

/** A function's answer as a Chat tool message's text: `{output: text}` (how chat-to-gemini.ts sends text) as the text. */
function toolText(response: Json | null | undefined): string {
  if (!response) return "";
  const keys = Object.keys(response);
  if (keys.length === 1 && keys[0] === "output" && typeof response.output === "string") return response.output;
  return JSON.stringify(response);
}

/** A Chat user message of these parts: plain text when it is one text part. */
function userMessage(parts: ChatRequestPart[]): ChatMessage {
  const only = parts.length === 1 ? parts[0]! : null;
  return { role: "user", content: only?.type === "text" ? only.text : parts };
}

function toolChoice(config: GeminiEndpointRequest["toolConfig"]): ChatFromGemini["tool_choice"] | undefined {
  const calling = config?.functionCallingConfig;
  switch (calling?.mode) {
    case undefined:
    case "MODE_UNSPECIFIED":
      return undefined;
    case "AUTO":
    case "VALIDATED":
      return "auto";
    case "NONE":
      return "none";
    case "ANY": {
      const names = calling.allowedFunctionNames ?? [];
      return names.length === 1 ? { type: "function", function: { name: names[0]! } } : "required";
    }
    default:
      throw invalid("functionCallingConfig.mode must be AUTO, ANY, NONE or VALIDATED.", "toolConfig.functionCallingConfig.mode");
  }
}

/** thinkingConfig as Chat's reasoning_effort (the inverse of chat-to-gemini.ts's THINKING_BUDGETS); a budget of -1
 *  (the model decides) or includeThoughts alone say nothing Chat can carry. */
function reasoningEffort(config: NonNullable<GeminiEndpointRequest["generationConfig"]>["thinkingConfig"]): string | undefined {
  if (!config) return undefined;
  if (typeof config.thinkingLevel === "string") {
    const level = config.thinkingLevel.toLowerCase();
    if (!["minimal", "low", "medium", "high"].includes(level))
      throw invalid("thinkingLevel must be MINIMAL, LOW, MEDIUM or HIGH.", "generationConfig.thinkingConfig.thinkingLevel");
    return level;
  }
  const budget = config.thinkingBudget;
  if (budget === undefined || budget < 0) return undefined;
  if (budget === 0) return "none";
  return budget <= THINKING_BUDGETS.low! ? "low" : budget <= THINKING_BUDGETS.medium! ? "medium" : "high";
}

function generation(config: GeminiEndpointRequest["generationConfig"], chat: ChatFromGemini): void {
  if (!config) return;
  const param = "generationConfig";
  if (config.candidateCount !== undefined && config.candidateCount !== 1)
    throw invalid("Only candidateCount 1 is supported: the gateway returns one candidate.", `${param}.candidateCount`);
  if (config.responseModalities?.some((modality) => modality.toUpperCase() !== "TEXT"))
    throw invalid("Only TEXT responseModalities are supported here.", `${param}.responseModalities`);
  if (config.maxOutputTokens !== undefined) chat.max_completion_tokens = config.maxOutputTokens;
  if (config.temperature !== undefined) chat.temperature = config.temperature;
  if (config.topP !== undefined) chat.top_p = config.topP;
  if (config.presencePenalty !== undefined) chat.presence_penalty = config.presencePenalty;
  if (config.frequencyPenalty !== undefined) chat.frequency_penalty = config.frequencyPenalty;
  if (config.seed !== undefined) chat.seed = config.seed;
  const stops = (config.stopSequences ?? []).filter((stop) => stop !== "");
  if (stops.length) chat.stop = stops;

  const mime = config.responseMimeType?.toLowerCase();
  const schema =
    config.responseJsonSchema ?? (config.responseSchema ? (googleSchemaToJsonSchema(config.responseSchema) as Json) : undefined);
  if (mime !== undefined && mime !== "text/plain" && mime !== "application/json")
    throw invalid("responseMimeType must be text/plain or application/json here.", `${param}.responseMimeType`);
  if (schema) chat.response_format = { type: "json_schema", json_schema: { name: "response", schema } };
  else if (mime === "application/json") chat.response_format = { type: "json_object" };

  const effort = reasoningEffort(config.thinkingConfig);
  if (effort !== undefined) chat.reasoning_effort = effort;
}

/**
 * A GenerateContentRequest as a Chat request for `model`. `systemInstruction` becomes the system message; `user`
 * turns (and turns without a role, and the older `function` role) become user messages, `model` turns assistant
 * messages. Text, images (inline as data URIs, or http(s) `fileData`) and other inline files map to Chat's parts;
 * thought parts of model turns are dropped. A `functionCall` becomes a tool call (its own id, or `call_<turn>_<part>`),
 * and a `functionResponse` the tool message answering it, matched by id, else by name in order, ahead of the
 * user's other parts in that turn. Tools are `functionDeclarations` only (Google's own tools run inside Google, not on
 * every channel); `toolConfig` is tool_choice. generationConfig maps field by field: maxOutputTokens is the explicit
 * output cap (`max_completion_tokens`), responseSchema or responseJsonSchema a json_schema response format,
 * thinkingConfig the reasoning effort; topK, safetySettings and other settings Chat has no place for are dropped.
 */
export function geminiRequestToChat(body: GeminiEndpointRequest, model: string): ChatFromGemini {
  if (body.cachedContent !== undefined)
    throw invalid("cachedContent is not supported: this gateway holds no cached contents; send the contents.", "cachedContent");
  const messages: ChatMessage[] = [];

  if (body.systemInstruction) {
    const texts = body.systemInstruction.parts.map((part, index) => {
      if (typeof part.text !== "string") throw invalid("A system instruction holds text parts only.", `systemInstruction.parts[${index}]`);
      return part.text;
    });
    const text = texts.join("\n");
    if (text !== "") messages.push({ role: "system", content: text });
  }

  /** The calls of the last model turn not answered yet: a functionResponse answers one of them. */
  let pending: { id: string; name: string }[] = [];
  body.contents.forEach((content, turn) => {
    const param = `contents[${turn}]`;
    const role = content.role ?? "user";
    if (role === "model") {
      let text = "";
      const calls: ChatToolCall[] = [];
      content.parts.forEach((part, index) => {
        if (part.functionCall) {
          const { id, name, args } = part.functionCall;
          calls.push({ id: id || `call_${turn}_${index}`, type: "function", function: { name, arguments: JSON.stringify(args ?? {}) } });
        } else if (typeof part.text === "string") {
          if (!part.thought) text += part.text;
        } else throw invalid("A model turn holds text and function calls only here.", `${param}.parts[${index}]`);
      });
      // A turn of thoughts alone says nothing Chat can carry: no empty assistant message goes upstream.
      if (text !== "" || calls.length)
        messages.push({ role: "assistant", content: text === "" ? null : text, ...(calls.length ? { tool_calls: calls } : {}) });
      pending = calls.map((call) => ({ id: call.id, name: call.function.name }));
      return;
    }
    if (role !== "user" && role !== "function") throw invalid('role must be "user" or "model".', `${param}.role`);
    const parts: ChatRequestPart[] = [];
    content.parts.forEach((part, index) => {
      if (!part.functionResponse) {
        if (part.functionCall) throw invalid("A functionCall belongs in a model turn.", `${param}.parts[${index}]`);
        parts.push(userPart(part, param, index));
        return;
      }
      const partParam = `${param}.parts[${index}]`;
      const { id, name, response } = part.functionResponse;
      const byId = id ? pending.findIndex((call) => call.id === id) : -1;
      const at = byId !== -1 ? byId : pending.findIndex((call) => call.name === name);
      if (at === -1)
        throw invalid(
          `This functionResponse answers no functionCall of the model turn before it (name "${name}").`,
          `${partParam}.functionResponse`,
        );
      messages.push({ role: "tool", tool_call_id: pending[at]!.id, content: toolText(response) });
      pending.splice(at, 1);
    });
    if (parts.length) messages.push(userMessage(parts));
  });

  const chat: ChatFromGemini = { model, messages };
  const declarations = (body.tools ?? []).flatMap((tool, index) => {
    const other = Object.keys(tool).find((key) => key !== "functionDeclarations");
    if (other)
      throw invalid(
        `Tools of kind "${other}" are not supported here: Google's own tools run inside Google; declare functions (functionDeclarations).`,
        `tools[${index}]`,
      );
    return tool.functionDeclarations ?? [];
  });
  if (declarations.length) {
    chat.tools = declarations.map((declaration) => ({
      type: "function",
      function: {
        name: declaration.name,
        ...(declaration.description ? { description: declaration.description } : {}),
        parameters:
          declaration.parametersJsonSchema ??
          (declaration.parameters ? (googleSchemaToJsonSchema(declaration.parameters) as Json) : { type: "object", properties: {} }),
      },
    }));
    const choice = toolChoice(body.toolConfig);
    if (choice !== undefined) chat.tool_choice = choice;
  }
  generation(body.generationConfig, chat);
  return chat;
}
