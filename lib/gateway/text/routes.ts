// /v1/chat/completions, /v1/messages and /v1/messages/count_tokens, and the playground's copies of the first two: one
// definition per endpoint (docs/routes.md). The handlers parse their bodies with their own readers (./body.ts); the
// schemas here describe those bodies.
import { defineRoute } from "@/lib/platform/http/route-definition";
import { playgroundCopy } from "@/lib/gateway/playground";
import { chatCompletions, messages } from "./handler";
import { countTokens } from "./count-tokens";
import { chatCompletionAnswer, chatSchema, countTokensAnswer, messageAnswer, messagesSchema } from "./schemas";

const chat = defineRoute({
  method: "POST",
  path: "/v1/chat/completions",
  auth: "bearer",
  summary: "Chat Completions (OpenAI-compatible); stream with `stream: true`",
  dialect: "openai",
  request: { body: chatSchema },
  response: { 200: chatCompletionAnswer },
  stream: true,
  handler: chatCompletions,
});
const messagesCall = defineRoute({
  method: "POST",
  path: "/v1/messages",
  auth: "apiKey",
  summary: "Messages (Anthropic-compatible); the key goes in x-api-key",
  dialect: "anthropic",
  request: { body: messagesSchema },
  response: { 200: messageAnswer },
  stream: true,
  handler: messages,
});

export const routes = [
  chat,
  messagesCall,
  defineRoute({
    method: "POST",
    path: "/v1/messages/count_tokens",
    auth: "apiKey",
    dialect: "anthropic",
    summary: "The input tokens a Messages request would read (the gateway's estimate; free)",
    request: { body: messagesSchema.omit({ max_tokens: true }) },
    response: { 200: countTokensAnswer },
    handler: countTokens,
  }),
];

export const playgroundRoutes = [playgroundCopy(chat), playgroundCopy(messagesCall)];
