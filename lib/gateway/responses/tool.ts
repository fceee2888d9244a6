// The image tool as each side sees it: the echo in the response object (vendor shape), and the function tool the
// gateway offers a Chat Completions or Messages model when it runs the tool loop itself, with the conversation in
// Chat Completions form. The gateway's input-token count is taken over exactly what the tool loop sends, so the
// reservation and the simulator's numbers match what a real model would read.
import { countChatRequestInputTokens, type CountStats } from "@/lib/money/tokens";
import type { ChatRequestBody, ChatRequestMessage, ChatRequestPart } from "@/lib/dialects/chat/wire";
import type { ImageTool, InputImageUri, ResponsesRequest } from "@/lib/wire/responses-request";

export const IMAGE_FUNCTION = "generate_image";

/** The function tool for the text model. The `action` values it may choose follow the tool's `action` (docs/api.md §2.4). */
export function imageFunctionTool(action: ImageTool["action"]): NonNullable<ChatRequestBody["tools"]>[number] {
  const actions = action === "auto" ? ["generate", "edit"] : [action];
  return {
    type: "function",
    function: {
      name: IMAGE_FUNCTION,
      description:
        "Creates one image with the image model and shows it to the user. Call it once per image: for three images, call it three times " +
        "with a different prompt each (at most 4 per answer). 'edit' changes the image the user sent; 'generate' makes a new one.",
      parameters: {
        type: "object",
        properties: {
          prompt: { type: "string", description: "A detailed prompt for the image model, rewritten from the user's request." },
          action: { type: "string", enum: actions, description: "generate: a new image. edit: change the user's input image." },
        },
        required: ["prompt", "action"],
        additionalProperties: false,
      },
    },
  };
}

const TOOL_GUIDANCE =
  `You can create images with the ${IMAGE_FUNCTION} tool. When the user asks for images, call it once per image with a rewritten, ` +
  "detailed prompt. The images are shown to the user as they are made; afterwards answer in at most one short sentence, or not at all.";

function partsOf(content: ResponsesRequest["messages"][number]["content"], images: InputImageUri[]): ChatRequestPart[] {
  return content.map((part) =>
    part.type === "input_image" ? { type: "image_url", image_url: { url: images[part.image]!.uri } } : { type: "text", text: part.text },
  );
}

/** The conversation in Chat Completions form: the client's instructions, the tool guidance, then the input messages. */
export function chatMessagesOf(request: ResponsesRequest): ChatRequestMessage[] {
  const messages: ChatRequestMessage[] = [
    { role: "system", content: request.instructions },
    { role: "system", content: TOOL_GUIDANCE },
  ];
  for (const message of request.messages) {
    if (message.role === "user") {
      messages.push({ role: "user", content: partsOf(message.content, request.images) });
    } else {
      // Only user turns carry images (checked in responses-request.ts); the others are text.
      const text = message.content.map((part) => (part.type === "input_image" ? "" : part.text)).join("");
      messages.push(message.role === "assistant" ? { role: "assistant", content: text } : { role: "system", content: text });
    }
  }
  return messages;
}

/** The text model's input as the gateway counts it: the first request of the tool loop. */
export function countResponsesInputTokens(request: ResponsesRequest, stats?: CountStats): number {
  return countChatRequestInputTokens(
    { messages: chatMessagesOf(request) as never, tools: [imageFunctionTool(request.tool.action)] },
    stats,
  );
}

/** The size in bytes of that first request without its inline images (they are counted as images, not by size). */
export function responsesRequestBytes(request: ResponsesRequest): number {
  const withoutImages = { ...request, images: request.images.map((image) => ({ ...image, uri: "" })) };
  return Buffer.byteLength(JSON.stringify({ messages: chatMessagesOf(withoutImages), tools: [imageFunctionTool(request.tool.action)] }));
}
