// Messages to Chat Completions: a Messages request served by a Chat upstream (the request converted to Chat), and a
// Messages upstream's whole answer given to a Chat client (message converted to chat.completion). Pure.
import { z } from "zod";
import {
  anthropicInputTotal,
  chatFinishReason,
  chatUsage,
  textBlockSchema,
  toolUseBlockSchema,
  invalid,
  nowSeconds,
  requestField,
  upstreamInvalid,
  withoutPrefix,
} from "./common";
import { type MessagesResponseInput, messagesBlockSchema, type MessagesRequestInput } from "@/lib/dialects/messages/wire";
import type { ChatCompletion, ChatToolCall, ChatRequestBody, ChatRequestMessage, ChatRequestPart } from "@/lib/dialects/chat/wire";

// =============================================================================================
// Anthropic Messages request → OpenAI chat request

const imageBlockSchema = z.looseObject({
  type: z.literal("image"),
  source: z.union([
    z.looseObject({ type: z.literal("base64"), media_type: z.string(), data: z.string() }),
    z.looseObject({ type: z.literal("url"), url: z.string() }),
  ]),
});
const documentBlockSchema = z.looseObject({
  type: z.literal("document"),
  title: z.string().nullish(),
  source: z.union([
    z.looseObject({ type: z.literal("base64"), media_type: z.string(), data: z.string() }),
    z.looseObject({ type: z.literal("text"), data: z.string() }),
    z.looseObject({ type: z.string() }),
  ]),
});
const toolResultBlockSchema = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(messagesBlockSchema)]).nullish(),
  is_error: z.boolean().nullish(),
});

function blockToPart(block: z.infer<typeof messagesBlockSchema>, param: string): ChatRequestPart {
  switch (block.type) {
    case "text":
      return { type: "text", text: requestField(textBlockSchema, block, param, "text block").text };
    case "image": {
      const { source } = requestField(imageBlockSchema, block, param, "image block");
      return {
        type: "image_url",
        image_url: { url: source.type === "base64" ? `data:${source.media_type};base64,${source.data}` : source.url },
      };
    }
    case "document": {
      const document = requestField(documentBlockSchema, block, param, "document block");
      const source = document.source as { type: string; media_type?: string; data?: string };
      if (source.type === "text" && typeof source.data === "string") return { type: "text", text: source.data };
      if (source.type === "base64" && source.media_type === "application/pdf" && typeof source.data === "string") {
        return {
          type: "file",
          file: {
            filename: document.title ? `${document.title}.pdf` : "document.pdf",
            file_data: `data:application/pdf;base64,${source.data}`,
          },
        };
      }
      throw invalid("Only PDF documents sent inline as base64, or plain-text documents, are supported for this model.", `${param}.source`);
    }
    default:
      throw invalid(`Content blocks of type "${block.type}" are not supported for this model.`, `${param}.type`);
  }
}

/**
 * An Anthropic Messages request as an OpenAI chat request: `system` becomes the first message; `tool_result` blocks
 * become `tool` messages placed right after the assistant turn that called them (images in a tool result follow in
 * a user message, since tool messages carry text only); thinking blocks are dropped; `top_k` and `thinking` have no
 * OpenAI equivalent and are ignored. Streaming requests always ask for `stream_options.include_usage`, so usage can
 * be read from the stream. `maxTokensField` picks `max_completion_tokens` (OpenAI's current name; reasoning
 * models reject the other) or `max_tokens` (older OpenAI-compatible servers).
 */
export function chatRequestFromMessages(
  body: MessagesRequestInput,
  upstreamModel: string,
  options: { maxTokensField?: "max_completion_tokens" | "max_tokens" } = {},
): ChatRequestBody {
  const messages: ChatRequestMessage[] = [];
  if (body.system !== undefined && body.system !== null) {
    const system = typeof body.system === "string" ? body.system : body.system.map((block) => block.text).join("\n\n");
    if (system !== "") messages.push({ role: "system", content: system });
  }

  body.messages.forEach((message, index) => {
    const param = `messages[${index}].content`;
    if (message.role === "system") {
      const text =
        typeof message.content === "string"
          ? message.content
          : message.content
              .map((block, blockIndex) => requestField(textBlockSchema, block, `${param}[${blockIndex}]`, "text block").text)
              .join("\n\n");
      if (text !== "") messages.push({ role: "system", content: text });
      return;
    }
    if (message.role === "assistant") {
      if (typeof message.content === "string") {
        messages.push({ role: "assistant", content: message.content });
        return;
      }
      let text = "";
      const toolCalls: ChatToolCall[] = [];
      message.content.forEach((block, blockIndex) => {
        const blockParam = `${param}[${blockIndex}]`;
        if (block.type === "text") text += requestField(textBlockSchema, block, blockParam, "text block").text;
        else if (block.type === "tool_use") {
          const call = requestField(toolUseBlockSchema, block, blockParam, "tool_use block");
          toolCalls.push({ id: call.id, type: "function", function: { name: call.name, arguments: JSON.stringify(call.input ?? {}) } });
        } else if (block.type !== "thinking" && block.type !== "redacted_thinking") {
          throw invalid(`Content blocks of type "${block.type}" are not supported for this model.`, `${blockParam}.type`);
        }
      });
      messages.push({
        role: "assistant",
        content: text === "" && toolCalls.length > 0 ? null : text,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      });
      return;
    }

    if (typeof message.content === "string") {
      messages.push({ role: "user", content: message.content });
      return;
    }
    const parts: ChatRequestPart[] = [];
    message.content.forEach((block, blockIndex) => {
      const blockParam = `${param}[${blockIndex}]`;
      if (block.type !== "tool_result") {
        parts.push(blockToPart(block, blockParam));
        return;
      }
      const result = requestField(toolResultBlockSchema, block, blockParam, "tool_result block");
      let text = "";
      if (typeof result.content === "string") text = result.content;
      else {
        (result.content ?? []).forEach((inner, innerIndex) => {
          const part = blockToPart(inner, `${blockParam}.content[${innerIndex}]`);
          if (part.type === "text") text += (text === "" ? "" : "\n") + part.text;
          else parts.push(part);
        });
      }
      messages.push({ role: "tool", tool_call_id: result.tool_use_id, content: text });
    });
    if (parts.length > 0) messages.push({ role: "user", content: parts });
  });

  const request: ChatRequestBody = { model: upstreamModel, messages };
  request[options.maxTokensField ?? "max_completion_tokens"] = body.max_tokens;
  if (body.temperature !== undefined && body.temperature !== null) request.temperature = body.temperature;
  if (body.top_p !== undefined && body.top_p !== null) request.top_p = body.top_p;
  if (body.stop_sequences && body.stop_sequences.length > 0) request.stop = body.stop_sequences;
  if (body.stream) {
    request.stream = true;
    request.stream_options = { include_usage: true };
  }
  if (body.metadata?.user_id) request.user = body.metadata.user_id;
  if (body.tools && body.tools.length > 0) {
    request.tools = body.tools.map((tool, index) => {
      // Anthropic's server tools (web search, code execution, …) run inside Anthropic; no OpenAI equivalent.
      if (tool.type && tool.type !== "custom")
        throw invalid(`Tools of type "${tool.type}" are not supported for this model.`, `tools[${index}].type`);
      return {
        type: "function" as const,
        function: {
          name: tool.name,
          ...(tool.description ? { description: tool.description } : {}),
          parameters: tool.input_schema ?? { type: "object", properties: {} },
        },
      };
    });
    const choice = body.tool_choice;
    if (choice) {
      if (choice.type === "auto") request.tool_choice = "auto";
      else if (choice.type === "any") request.tool_choice = "required";
      else if (choice.type === "none") request.tool_choice = "none";
      else if (choice.type === "tool" && choice.name) request.tool_choice = { type: "function", function: { name: choice.name } };
      else throw invalid("tool_choice must be auto, any, none or a named tool.", "tool_choice");
      if (choice.disable_parallel_tool_use) request.parallel_tool_calls = false;
    }
  }
  const format = body.output_config?.format;
  if (format?.type === "json_schema" && format.schema)
    request.response_format = { type: "json_schema", json_schema: { name: "output", schema: format.schema } };
  return request;
}

// =============================================================================================
// Anthropic message → OpenAI chat.completion

/**
 * An Anthropic message as an OpenAI `chat.completion`: text blocks joined into `content`, `tool_use` blocks as
 * `tool_calls`, thinking blocks dropped (Chat Completions has no place for them). `prompt_tokens` counts cached
 * input too, as OpenAI's does.
 */
export function messagesResponseToChat(
  message: MessagesResponseInput,
  publicModel: string,
  options: { created?: number } = {},
): ChatCompletion {
  let text = "";
  const toolCalls: ChatToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      const parsed = textBlockSchema.safeParse(block);
      if (!parsed.success) throw upstreamInvalid("text block");
      text += parsed.data.text;
    } else if (block.type === "tool_use") {
      const parsed = toolUseBlockSchema.safeParse(block);
      if (!parsed.success) throw upstreamInvalid("tool_use block");
      toolCalls.push({
        id: parsed.data.id,
        type: "function",
        function: { name: parsed.data.name, arguments: JSON.stringify(parsed.data.input ?? {}) },
      });
    }
  }
  const promptTokens = anthropicInputTotal(message.usage);
  const completionTokens = message.usage.output_tokens ?? 0;
  return {
    id: `chatcmpl-${withoutPrefix(message.id, "msg_")}`,
    object: "chat.completion",
    created: options.created ?? nowSeconds(),
    model: publicModel,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          // OpenAI sends null content when the reply is only tool calls.
          content: text === "" && toolCalls.length > 0 ? null : text,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: chatFinishReason(message.stop_reason),
      },
    ],
    usage: chatUsage(promptTokens, completionTokens, message.usage.cache_read_input_tokens ?? 0),
  };
}
