// Chat Completions to Converse: a Chat request served by a Bedrock Converse upstream (lib/dialects/README.md: Chat is
// the hub). Pure. The shapes are in ./wire.ts; the model id goes in the URL, so it is not part of the body.
import { createHash } from "node:crypto";
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
  alternatingTurns,
} from "@/lib/dialects/convert/common";
import type { chatContentPartSchema, ChatRequestInput, chatToolCallSchema } from "@/lib/dialects/chat/wire";
import type { ConverseImageFormat, ConverseMessage, ConverseRequest, ConverseRequestBlock, ConverseTool, ConverseToolChoice } from "./wire";

const IMAGE_FORMATS: Record<string, ConverseImageFormat> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

/**
 * Converse tool-use ids match [a-zA-Z0-9_-]{1,64} (API_runtime_ToolUseBlock); other vendors' ids may not. Applied the
 * same way to a call's id and to the result that answers it, so the pair still matches; an id that would be empty or
 * too long becomes a digest of itself.
 */
export function converseToolId(id: string): string {
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (cleaned !== "" && cleaned.length <= 64) return cleaned;
  return `tooluse_${createHash("sha256").update(id).digest("hex").slice(0, 48)}`;
}

/** Converse refuses a message text block that is empty or only whitespace ("The text field … is blank"). */
function textBlock(text: string): ConverseRequestBlock[] {
  return text.trim() === "" ? [] : [{ text }];
}

function userPartToBlocks(part: z.infer<typeof chatContentPartSchema>, param: string): ConverseRequestBlock[] {
  switch (part.type) {
    case "text":
      return textBlock(requestField(textPartSchema, part, param, "text part").text);
    case "image_url": {
      const { url } = requestField(imagePartSchema, part, param, "image part").image_url;
      const dataUri = parseDataUri(url);
      if (dataUri) {
        const format = IMAGE_FORMATS[dataUri.mediaType];
        if (!format) throw invalid(`Images must be PNG, JPEG, GIF or WebP; got "${dataUri.mediaType}".`, `${param}.image_url.url`);
        // The JSON wire carries the bytes as base64: the data URI's payload goes as it came.
        return [{ image: { format, source: { bytes: dataUri.data } } }];
      }
      if (/^https?:\/\//i.test(url)) {
        throw invalid(
          "This model does not take image URLs (Amazon Bedrock's Converse API reads images only from the request): " +
            "send the image inline as a base64 data URI (data:image/png;base64,...).",
          `${param}.image_url.url`,
        );
      }
      throw invalid("An image URL must be a base64 data URI.", `${param}.image_url.url`);
    }
    case "file":
      requestField(filePartSchema, part, param, "file part");
      throw invalid("Files are not supported for this model.", `${param}.type`);
    default:
      throw invalid(`Content parts of type "${part.type}" are not supported for this model.`, `${param}.type`);
  }
}

function toolCallToBlock(call: z.infer<typeof chatToolCallSchema>, param: string): ConverseRequestBlock {
  const input = toolCallArguments(call.function.arguments, param);
  return { toolUse: { toolUseId: converseToolId(call.id), name: call.function.name, input } };
}

function mapToolChoice(choice: ChatRequestInput["tool_choice"]): ConverseToolChoice | undefined {
  if (choice === undefined || choice === null || choice === "auto") return undefined; // auto is Converse's default
  if (choice === "required") return { any: {} };
  if (typeof choice === "object" && choice.type === "function" && choice.function) return { tool: { name: choice.function.name } };
  throw invalid("tool_choice must be none, auto, required or a named function.", "tool_choice");
}

function mapTools(tools: NonNullable<ChatRequestInput["tools"]>): ConverseTool[] {
  return tools.map((tool, index) => {
    if (tool.type !== "function" || !tool.function)
      throw invalid(`Tools of type "${tool.type}" are not supported for this model.`, `tools[${index}].type`);
    return {
      toolSpec: {
        name: tool.function.name,
        ...(tool.function.description ? { description: tool.function.description } : {}),
        inputSchema: { json: tool.function.parameters ?? { type: "object", properties: {} } },
      },
    };
  });
}

/**
 * The tool configuration. Converse has no tool choice "none": `none` sends no tools at all. But Converse refuses a
 * conversation holding toolUse or toolResult blocks without a `toolConfig` ("The toolConfig field must be defined
 * when using toolUse and toolResult content blocks"), so when the history holds some, the tools go anyway, without a
 * choice (the model may then still call one); with no tools declared, each tool the history called is declared
 * with an open schema, so that the history can be sent at all.
 */
function toolConfig(body: ChatRequestInput, turns: ConverseMessage[]): ConverseRequest["toolConfig"] {
  const declared = body.tools && body.tools.length > 0 ? mapTools(body.tools) : [];
  const choice = body.tool_choice === "none" ? undefined : mapToolChoice(body.tool_choice);
  if (declared.length > 0 && body.tool_choice !== "none") return { tools: declared, ...(choice ? { toolChoice: choice } : {}) };

  const blocks = turns.flatMap((turn) => turn.content);
  if (!blocks.some((block) => "toolUse" in block || "toolResult" in block)) return undefined;
  if (declared.length > 0) return { tools: declared };
  const called = new Set(blocks.flatMap((block) => ("toolUse" in block ? [block.toolUse.name] : [])));
  if (called.size === 0) return undefined; // results without calls: Bedrock says what is wrong
  return { tools: [...called].map((name) => ({ toolSpec: { name, inputSchema: { json: { type: "object" } } } })) };
}

/**
 * An OpenAI chat request as a Converse request. System and developer messages become `system` blocks; tool results
 * become `toolResult` blocks in a user turn; consecutive turns of one role are merged, as Converse wants the roles to
 * alternate, starting with the user. The output cap is `options.outputCap`, exactly: the cap the gateway reserved
 * for is the cap sent (docs/billing.md). `temperature`, `top_p` and `stop` go to `inferenceConfig` as they are (their
 * ranges are the model's; Bedrock refuses what its model does not take), a `json_schema` response format to
 * `outputConfig`. Everything else is not sent, as Converse refuses fields it does not know: `reasoning_effort`
 * (a thinking budget is the model's own field, in `additionalModelRequestFields`, and is not mapped here),
 * `parallel_tool_calls`, `user`, `seed`, penalties, logprobs, `json_object`. `n` above 1 is refused.
 */
export function chatRequestToConverse(body: ChatRequestInput, options: { outputCap: number }): ConverseRequest {
  refuseSeveralChoices(body.n);

  const system: { text: string }[] = [];
  const { turns, add: addTurn } = alternatingTurns<ConverseRequestBlock>();

  body.messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case "system":
      case "developer": {
        const text = textOfChatContent(message.content, `${param}.content`);
        if (text.trim() !== "") system.push({ text });
        return;
      }
      case "user": {
        const content = message.content ?? "";
        addTurn(
          "user",
          typeof content === "string"
            ? textBlock(content)
            : content.flatMap((part, partIndex) => userPartToBlocks(part, `${param}.content[${partIndex}]`)),
        );
        return;
      }
      case "assistant": {
        // Text first, then the calls (Bedrock wants them in this order). Reasoning a client echoes back is not sent:
        // Converse takes it back only with the signature the model gave it, which Chat does not carry.
        const blocks = textBlock(textOfChatContent(message.content, `${param}.content`));
        for (const [callIndex, call] of (message.tool_calls ?? []).entries())
          blocks.push(toolCallToBlock(call, `${param}.tool_calls[${callIndex}]`));
        addTurn("assistant", blocks);
        return;
      }
      case "tool": {
        if (!message.tool_call_id) throw invalid("A tool message needs tool_call_id.", `${param}.tool_call_id`);
        const content = message.content ?? "";
        // The result goes as text, as the client wrote it (read as JSON, large numbers could change); an empty
        // result is fine inside a toolResult, unlike a message's text block.
        const parts =
          typeof content === "string"
            ? [{ text: content }]
            : content.map((part, partIndex) => ({
                text: requestField(textPartSchema, part, `${param}.content[${partIndex}]`, "text part").text,
              }));
        addTurn("user", [
          { toolResult: { toolUseId: converseToolId(message.tool_call_id), content: parts.length > 0 ? parts : [{ text: "" }] } },
        ]);
        return;
      }
      default:
        throw invalid(`Messages with role "${message.role}" are not supported for this model.`, `${param}.role`);
    }
  });
  if (turns.length === 0) throw invalid("At least one message must have non-empty content.", "messages");
  if (turns[0]!.role !== "user") {
    throw invalid("For this model the conversation must start with a user message (after any system messages).", "messages");
  }

  const request: ConverseRequest = { messages: turns, inferenceConfig: { maxTokens: options.outputCap } };
  if (system.length > 0) request.system = system;
  if (body.temperature !== undefined && body.temperature !== null) request.inferenceConfig.temperature = body.temperature;
  if (body.top_p !== undefined && body.top_p !== null) request.inferenceConfig.topP = body.top_p;
  if (body.stop !== undefined && body.stop !== null) {
    const stops = (typeof body.stop === "string" ? [body.stop] : body.stop).filter((stop) => stop !== "");
    if (stops.length > 0) request.inferenceConfig.stopSequences = stops;
  }
  const tools = toolConfig(body, turns);
  if (tools) request.toolConfig = tools;
  const format = body.response_format?.type === "json_schema" ? body.response_format.json_schema : undefined;
  if (format?.schema) {
    const name = typeof format.name === "string" && format.name !== "" ? { name: format.name } : {};
    request.outputConfig = {
      textFormat: { type: "json_schema", structure: { jsonSchema: { schema: JSON.stringify(format.schema), ...name } } },
    };
  }
  return request;
}
