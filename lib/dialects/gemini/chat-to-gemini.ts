// Chat Completions to Gemini: a Chat request served by a Gemini upstream (the Gemini API or Vertex AI's Google
// publisher; lib/dialects/README.md). Pure. Google refuses fields it does not know, so only what is mapped below
// goes upstream; every other Chat field is dropped.
//   https://ai.google.dev/api/generate-content (the request), https://ai.google.dev/gemini-api/docs/function-calling
import type { z } from "zod";
import {
  filePartSchema,
  imagePartSchema,
  invalid,
  parseDataUri,
  requestField,
  textOfChatContent,
  textPartSchema,
  toolCallArguments,
  refuseSeveralChoices,
} from "@/lib/dialects/convert/common";
import type { chatContentPartSchema, ChatRequestInput, chatToolCallSchema } from "@/lib/dialects/chat/wire";
import type { GeminiContent, GeminiGenerationConfig, GeminiRequest, GeminiRequestPart, GeminiThinkingConfig } from "./wire";

/**
 * `reasoning_effort` as a thinking budget: Google's own OpenAI compatibility maps low, medium and high to 1,024,
 * 8,192 and 24,576 tokens, and none to no thinking (https://ai.google.dev/gemini-api/docs/openai). `minimal` is
 * read as low and `xhigh` as high (24,576 is Gemini 2.5 Flash's largest budget).
 */
export const THINKING_BUDGETS: Record<string, number> = { none: 0, minimal: 1024, low: 1024, medium: 8192, high: 24576, xhigh: 24576 };

/**
 * The signature Google documents for a function call the model's own answer did not sign
 * (https://ai.google.dev/gemini-api/docs/thought-signatures): Gemini 3 refuses a call turn without one, and Chat
 * Completions has no place to carry the real one back.
 */
export const SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator";

/** The type of an image named by URL, from its extension; JPEG when the extension says nothing. */
const IMAGE_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  heic: "image/heic",
  heif: "image/heif",
};

export function imageTypeOfUrl(url: string): string {
  const path = url.split(/[?#]/, 1)[0] ?? "";
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  return (extension && IMAGE_TYPES[extension]) || "image/jpeg";
}

/** File types Gemini reads inline (https://ai.google.dev/gemini-api/docs/document-processing and its image, audio
 *  and video pages). */
function inlineFileType(mediaType: string): boolean {
  return mediaType === "application/pdf" || /^(text|image|audio|video)\/[a-z0-9.+-]+$/.test(mediaType);
}

function userPart(part: z.infer<typeof chatContentPartSchema>, param: string): GeminiRequestPart | null {
  switch (part.type) {
    case "text": {
      const { text } = requestField(textPartSchema, part, param, "text part");
      return text === "" ? null : { text }; // Google refuses an empty text part
    }
    case "image_url": {
      const { url } = requestField(imagePartSchema, part, param, "image part").image_url;
      const dataUri = parseDataUri(url);
      if (dataUri) {
        if (!dataUri.mediaType.startsWith("image/"))
          throw invalid(`An image data URI must hold an image; got "${dataUri.mediaType}".`, `${param}.image_url.url`);
        return { inlineData: { mimeType: dataUri.mediaType, data: dataUri.data } };
      }
      // The upstream fetches an http(s) image itself; the gateway never does (SECURITY.md, rule 21).
      if (/^https?:\/\//i.test(url)) return { fileData: { mimeType: imageTypeOfUrl(url), fileUri: url } };
      throw invalid("An image URL must be a base64 data URI or an http(s) URL.", `${param}.image_url.url`);
    }
    case "file": {
      const { file } = requestField(filePartSchema, part, param, "file part");
      const dataUri = file.file_data ? parseDataUri(file.file_data) : null;
      if (dataUri && inlineFileType(dataUri.mediaType)) return { inlineData: { mimeType: dataUri.mediaType, data: dataUri.data } };
      throw invalid(
        "Only PDF, text, image, audio or video files sent inline as a base64 data URI are supported for this model.",
        `${param}.file`,
      );
    }
    default:
      throw invalid(`Content parts of type "${part.type}" are not supported for this model.`, `${param}.type`);
  }
}

function functionCallPart(call: z.infer<typeof chatToolCallSchema>, param: string): GeminiRequestPart {
  const args = toolCallArguments(call.function.arguments, param);
  // No `id`: Vertex refuses one on a function call, and Gemini pairs calls with responses by order.
  return { functionCall: { name: call.function.name, args } };
}

/**
 * A tool's result as a functionResponse `response`: a JSON object as it is, anything else as `{output: text}`
 * (Google reads an `output` key as the function's output, https://ai.google.dev/api/caching#FunctionResponse).
 */
function functionResponse(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // not JSON: plain text output
  }
  return { output: text };
}

/** A JSON Schema as Google takes it: `$schema` names the draft and Google's schema fields do not know it. */
function jsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _draft, ...rest } = schema;
  return rest;
}

function toolConfig(choice: ChatRequestInput["tool_choice"]): GeminiRequest["toolConfig"] | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === "none") return { functionCallingConfig: { mode: "NONE" } };
  if (choice === "auto") return { functionCallingConfig: { mode: "AUTO" } };
  if (choice === "required") return { functionCallingConfig: { mode: "ANY" } };
  if (typeof choice === "object" && choice.type === "function" && choice.function)
    return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.function.name] } };
  throw invalid("tool_choice must be none, auto, required or a named function.", "tool_choice");
}

function thinkingConfig(effort: unknown): GeminiThinkingConfig | undefined {
  if (effort === undefined || effort === null) return undefined;
  const budget = typeof effort === "string" ? THINKING_BUDGETS[effort] : undefined;
  if (budget === undefined) throw invalid("reasoning_effort must be none, minimal, low, medium or high.", "reasoning_effort");
  // The thought summaries come back as reasoning_content (lib/dialects/gemini/gemini-to-chat.ts).
  return budget === 0 ? { thinkingBudget: 0 } : { thinkingBudget: budget, includeThoughts: true };
}

/**
 * A Chat request as a Gemini GenerateContentRequest. System and developer messages become `systemInstruction`;
 * user and assistant turns become `user` and `model` contents (consecutive turns of one role merged); tool calls
 * become `functionCall` parts and the tool results that follow them one `user` turn of `functionResponse` parts,
 * each named after the call it answers. The output cap goes as `maxOutputTokens`, exactly: it bounds thoughts and
 * answer together, and it is what the gateway reserved (docs/billing.md). `n` above 1 is refused; fields Gemini has
 * no place for (user, seed, penalties, logprobs, parallel_tool_calls) are dropped.
 */
export function chatRequestToGemini(body: ChatRequestInput, options: { outputCap: number }): GeminiRequest {
  refuseSeveralChoices(body.n);

  const system: { text: string }[] = [];
  // `answers` marks a turn of function responses: Google wants it right after the call turn, with nothing else in it.
  const contents: (GeminiContent & { answers: boolean })[] = [];
  const add = (role: "user" | "model", parts: GeminiRequestPart[], answers = false) => {
    if (parts.length === 0) return; // Google refuses a turn without parts
    const last = contents.at(-1);
    if (last && last.role === role && last.answers === answers) last.parts.push(...parts);
    else contents.push({ role, parts, answers });
  };
  const callNames = new Map<string, string>();

  body.messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case "system":
      case "developer": {
        const text = textOfChatContent(message.content, `${param}.content`);
        if (text !== "") system.push({ text });
        return;
      }
      case "user": {
        const content = message.content ?? "";
        const parts =
          typeof content === "string"
            ? content === ""
              ? []
              : [{ text: content }]
            : content.map((part, partIndex) => userPart(part, `${param}.content[${partIndex}]`)).filter((part) => part !== null);
        add("user", parts);
        return;
      }
      case "assistant": {
        const text = textOfChatContent(message.content, `${param}.content`);
        const parts: GeminiRequestPart[] = text === "" ? [] : [{ text }];
        (message.tool_calls ?? []).forEach((call, callIndex) => {
          const part = functionCallPart(call, `${param}.tool_calls[${callIndex}]`);
          // Signed like the model signs a turn of parallel calls: the first call only.
          parts.push(callIndex === 0 ? { ...part, thoughtSignature: SKIP_THOUGHT_SIGNATURE } : part);
          callNames.set(call.id, call.function.name);
        });
        add("model", parts);
        return;
      }
      case "tool": {
        if (!message.tool_call_id) throw invalid("A tool message needs tool_call_id.", `${param}.tool_call_id`);
        const name = callNames.get(message.tool_call_id);
        if (name === undefined)
          throw invalid("tool_call_id must name a tool call of an earlier assistant message.", `${param}.tool_call_id`);
        const text = textOfChatContent(message.content, `${param}.content`);
        add("user", [{ functionResponse: { name, response: functionResponse(text) } }], true);
        return;
      }
      default:
        throw invalid(`Messages with role "${message.role}" are not supported for this model.`, `${param}.role`);
    }
  });
  if (contents.length === 0) throw invalid("At least one message must have non-empty content.", "messages");

  const generationConfig: GeminiGenerationConfig = { maxOutputTokens: options.outputCap };
  if (body.temperature !== undefined && body.temperature !== null) generationConfig.temperature = body.temperature;
  if (body.top_p !== undefined && body.top_p !== null) generationConfig.topP = body.top_p;
  if (body.stop !== undefined && body.stop !== null) {
    const stops = (typeof body.stop === "string" ? [body.stop] : body.stop).filter((stop) => stop !== "");
    if (stops.length > 0) generationConfig.stopSequences = stops;
  }
  const format = body.response_format;
  if (format && format.type !== "text") {
    if (format.type !== "json_object" && format.type !== "json_schema")
      throw invalid("response_format.type must be text, json_object or json_schema.", "response_format.type");
    generationConfig.responseMimeType = "application/json";
    const schema = format.type === "json_schema" ? format.json_schema?.schema : undefined;
    if (schema) generationConfig.responseJsonSchema = jsonSchema(schema);
  }
  const thinking = thinkingConfig((body as { reasoning_effort?: unknown }).reasoning_effort);
  if (thinking) generationConfig.thinkingConfig = thinking;

  const request: GeminiRequest = { contents: contents.map(({ role, parts }) => ({ role, parts })), generationConfig };
  if (system.length > 0) request.systemInstruction = { parts: system };
  if (body.tools && body.tools.length > 0) {
    const declarations = body.tools.map((tool, index) => {
      if (tool.type !== "function" || !tool.function)
        throw invalid(`Tools of type "${tool.type}" are not supported for this model.`, `tools[${index}].type`);
      const { name, description, parameters } = tool.function;
      return {
        name,
        ...(description ? { description } : {}),
        // A function without parameters leaves the field out, as Google asks.
        ...(parameters ? { parametersJsonSchema: jsonSchema(parameters) } : {}),
      };
    });
    request.tools = [{ functionDeclarations: declarations }];
    const config = toolConfig(body.tool_choice);
    if (config) request.toolConfig = config;
  }
  return request;
}
