// Chat Completions to Messages: a Chat request served by a Messages upstream (the request converted to Messages),
// and a Chat upstream's whole answer given to a Messages client (chat.completion converted to a message). Pure.
// Anthropic's own mapping of the OpenAI fields: https://docs.anthropic.com/en/api/openai-sdk
import type { z } from "zod";
import {
  ANTHROPIC_IMAGE_TYPES,
  anthropicToolId,
  DEFAULT_MAX_TOKENS,
  filePartSchema,
  imagePartSchema,
  invalid,
  parseDataUri,
  requestField,
  textOfChatContent,
  textPartSchema,
  upstreamInvalid,
  withoutPrefix,
  messagesStopReason,
  toolCallArguments,
  refuseSeveralChoices,
  alternatingTurns,
} from "./common";
import type { MessagesRequestBlock, MessagesRequestBody, MessagesContentBlock, MessagesResponse } from "@/lib/dialects/messages/wire";
import type { chatContentPartSchema, ChatRequestInput, chatToolCallSchema, ChatCompletionInput } from "@/lib/dialects/chat/wire";

// =============================================================================================
// OpenAI chat request → Anthropic Messages request

function userPartToBlock(part: z.infer<typeof chatContentPartSchema>, param: string): MessagesRequestBlock | null {
  switch (part.type) {
    case "text": {
      const { text } = requestField(textPartSchema, part, param, "text part");
      return text === "" ? null : { type: "text", text };
    }
    case "image_url": {
      const { url } = requestField(imagePartSchema, part, param, "image part").image_url;
      const dataUri = parseDataUri(url);
      if (dataUri) {
        if (!ANTHROPIC_IMAGE_TYPES.has(dataUri.mediaType)) {
          throw invalid(`Images must be JPEG, PNG, GIF or WebP; got "${dataUri.mediaType}".`, `${param}.image_url.url`);
        }
        return { type: "image", source: { type: "base64", media_type: dataUri.mediaType, data: dataUri.data } };
      }
      // The upstream fetches an http(s) image itself; the gateway never does (security rule 21).
      if (/^https?:\/\//i.test(url)) return { type: "image", source: { type: "url", url } };
      throw invalid("An image URL must be a base64 data URI or an http(s) URL.", `${param}.image_url.url`);
    }
    case "file": {
      const { file } = requestField(filePartSchema, part, param, "file part");
      const dataUri = file.file_data ? parseDataUri(file.file_data) : null;
      if (dataUri?.mediaType === "application/pdf")
        return { type: "document", source: { type: "base64", media_type: "application/pdf", data: dataUri.data } };
      throw invalid("Only PDF files sent inline as a base64 data URI are supported for this model.", `${param}.file`);
    }
    default:
      throw invalid(`Content parts of type "${part.type}" are not supported for this model.`, `${param}.type`);
  }
}

function toolCallToBlock(call: z.infer<typeof chatToolCallSchema>, param: string): MessagesRequestBlock {
  const input = toolCallArguments(call.function.arguments, param);
  return { type: "tool_use", id: anthropicToolId(call.id), name: call.function.name, input };
}

function mapToolChoice(
  choice: ChatRequestInput["tool_choice"],
  parallel: boolean | null | undefined,
): MessagesRequestBody["tool_choice"] | undefined {
  const noParallel = parallel === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined || choice === null) return parallel === false ? { type: "auto", disable_parallel_tool_use: true } : undefined;
  if (choice === "none") return { type: "none" };
  if (choice === "auto") return { type: "auto", ...noParallel };
  if (choice === "required") return { type: "any", ...noParallel };
  if (typeof choice === "object" && choice.type === "function" && choice.function)
    return { type: "tool", name: choice.function.name, ...noParallel };
  throw invalid("tool_choice must be none, auto, required or a named function.", "tool_choice");
}

/**
 * An OpenAI chat request as an Anthropic Messages request (https://docs.anthropic.com/en/api/openai-sdk lists the
 * same mapping). System and developer messages become `system`; tool results become `tool_result` blocks in a user
 * turn; consecutive turns of one role are merged, as Anthropic expects alternating turns; `temperature` is capped
 * at 1 (Anthropic's range) and `top_p` is dropped when `temperature` is set (recent Claude models reject both).
 * Fields with no Anthropic equivalent (seed, penalties, logprobs, json_object) are ignored; `n` above 1 is refused.
 */
export function chatRequestToMessages(body: ChatRequestInput, upstreamModel: string): MessagesRequestBody {
  refuseSeveralChoices(body.n);

  const system: string[] = [];
  const { turns, add: addTurn } = alternatingTurns<MessagesRequestBlock>();

  body.messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case "system":
      case "developer": {
        const text = textOfChatContent(message.content, `${param}.content`);
        if (text !== "") system.push(text);
        return;
      }
      case "user": {
        const content = message.content ?? "";
        const blocks =
          typeof content === "string"
            ? content === ""
              ? []
              : [{ type: "text" as const, text: content }]
            : content.map((part, partIndex) => userPartToBlock(part, `${param}.content[${partIndex}]`)).filter((block) => block !== null);
        addTurn("user", blocks);
        return;
      }
      case "assistant": {
        const text = textOfChatContent(message.content, `${param}.content`);
        const blocks: MessagesRequestBlock[] = text === "" ? [] : [{ type: "text", text }];
        for (const [callIndex, call] of (message.tool_calls ?? []).entries())
          blocks.push(toolCallToBlock(call, `${param}.tool_calls[${callIndex}]`));
        addTurn("assistant", blocks);
        return;
      }
      case "tool": {
        if (!message.tool_call_id) throw invalid("A tool message needs tool_call_id.", `${param}.tool_call_id`);
        const content = message.content ?? "";
        const result: MessagesRequestBlock = {
          type: "tool_result",
          tool_use_id: anthropicToolId(message.tool_call_id),
          content:
            typeof content === "string"
              ? content
              : content.map((part, partIndex) => ({
                  type: "text" as const,
                  text: requestField(textPartSchema, part, `${param}.content[${partIndex}]`, "text part").text,
                })),
        };
        addTurn("user", [result]);
        return;
      }
      default:
        throw invalid(`Messages with role "${message.role}" are not supported for this model.`, `${param}.role`);
    }
  });
  if (turns.length === 0) throw invalid("At least one message must have non-empty content.", "messages");

  const request: MessagesRequestBody = {
    model: upstreamModel,
    max_tokens: body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS,
    // A single text block is sent as a plain string: shorter, and what every Anthropic version accepts.
    messages: turns.map((turn) => {
      const only = turn.content.length === 1 ? turn.content[0] : undefined;
      return { role: turn.role, content: only?.type === "text" ? only.text : turn.content };
    }),
  };
  if (system.length > 0) request.system = system.join("\n\n");
  if (body.temperature !== undefined && body.temperature !== null) request.temperature = Math.min(1, Math.max(0, body.temperature));
  else if (body.top_p !== undefined && body.top_p !== null) request.top_p = body.top_p;
  if (body.stop !== undefined && body.stop !== null) {
    // Anthropic rejects stop sequences that are only whitespace.
    const stops = (typeof body.stop === "string" ? [body.stop] : body.stop).filter((stop) => stop.trim() !== "");
    if (stops.length > 0) request.stop_sequences = stops;
  }
  if (body.stream) request.stream = true;
  if (body.user) request.metadata = { user_id: body.user };
  if (body.tools && body.tools.length > 0) {
    request.tools = body.tools.map((tool, index) => {
      if (tool.type !== "function" || !tool.function)
        throw invalid(`Tools of type "${tool.type}" are not supported for this model.`, `tools[${index}].type`);
      return {
        name: tool.function.name,
        ...(tool.function.description ? { description: tool.function.description } : {}),
        input_schema: tool.function.parameters ?? { type: "object", properties: {} },
      };
    });
    const toolChoice = mapToolChoice(body.tool_choice, body.parallel_tool_calls);
    if (toolChoice) request.tool_choice = toolChoice;
  }
  // Structured outputs (https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs). json_object has no
  // equivalent and is ignored, as Anthropic's own OpenAI compatibility layer does.
  const schema = body.response_format?.type === "json_schema" ? body.response_format.json_schema?.schema : undefined;
  if (schema) request.output_config = { format: { type: "json_schema", schema } };
  return request;
}

// =============================================================================================
// OpenAI chat.completion → Anthropic message

function parseToolInput(argumentsText: string): Record<string, unknown> {
  try {
    const input: unknown = JSON.parse(argumentsText === "" ? "{}" : argumentsText);
    if (typeof input === "object" && input !== null && !Array.isArray(input)) return input as Record<string, unknown>;
  } catch {
    // Models occasionally emit invalid JSON; Anthropic clients expect an object, so an empty one stands in.
  }
  return {};
}

/**
 * An OpenAI `chat.completion` as an Anthropic message: content and refusal as a text block, tool calls as
 * `tool_use` blocks, finish_reason mapped back (see `messagesStopReason`). Anthropic's `input_tokens` excludes
 * cache reads, so cached tokens move to `cache_read_input_tokens`.
 */
export function chatResponseToMessage(completion: ChatCompletionInput, publicModel: string): MessagesResponse {
  const choice = completion.choices[0];
  if (!choice) throw upstreamInvalid("chat completion (no choices)");
  const content: MessagesContentBlock[] = [];
  const text = choice.message.content ?? choice.message.refusal ?? "";
  if (text !== "") content.push({ type: "text", text });
  for (const call of choice.message.tool_calls ?? []) {
    content.push({
      type: "tool_use",
      id: anthropicToolId(call.id),
      name: call.function.name,
      input: parseToolInput(call.function.arguments),
    });
  }
  const cached = completion.usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    id: `msg_${withoutPrefix(completion.id, "chatcmpl-")}`,
    type: "message",
    role: "assistant",
    model: publicModel,
    content,
    stop_reason: messagesStopReason(choice.finish_reason),
    stop_sequence: null,
    usage: {
      input_tokens: Math.max(0, (completion.usage?.prompt_tokens ?? 0) - cached),
      output_tokens: completion.usage?.completion_tokens ?? 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: cached,
    },
  };
}
