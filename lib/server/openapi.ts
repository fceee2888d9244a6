// /openapi.json: an OpenAPI 3.1 document generated from the same zod schemas the handlers validate with
// (zod 4's toJSONSchema), so the document cannot drift from what the gateway accepts.
import { z } from "zod";
import * as admin from "@/lib/admin-api/handlers";
import * as text from "@/lib/gateway/text";
import { settingsSchema } from "@/lib/admin-api/settings";
import { documentedRoutes as userDocs } from "@/lib/account-api/openapi";
import { documentedRoutes as imageDocs } from "@/lib/gateway/images/openapi";
import { documentedRoutes as responsesDocs } from "@/lib/gateway/responses/openapi";

export type Documented = {
  method: "get" | "post" | "patch" | "delete";
  path: string;
  summary: string;
  tag: "Gateway" | "Account" | "Operator";
  security: "bearer" | "apiKey" | "session" | "operator" | "none";
  body?: z.ZodType;
  /** Multipart bodies are described by hand (zod has no file type). */
  multipart?: Record<string, { type: string; format?: string; description?: string }>;
  stream?: boolean;
};

const SECURITY = {
  bearer: [{ apiKeyBearer: [] }],
  apiKey: [{ apiKeyHeader: [] }],
  session: [{ session: [] }],
  operator: [{ masterKey: [] }, { session: [] }],
  none: [],
};

const gateway: Documented[] = [
  {
    method: "post",
    path: "/v1/chat/completions",
    summary: "Chat Completions (OpenAI-compatible); stream with `stream: true`",
    tag: "Gateway",
    security: "bearer",
    body: text.chatSchema,
    stream: true,
  },
  {
    method: "post",
    path: "/v1/messages",
    summary: "Messages (Anthropic-compatible); the key goes in x-api-key",
    tag: "Gateway",
    security: "apiKey",
    body: text.messagesSchema,
    stream: true,
  },
  {
    method: "post",
    path: "/v1/messages/count_tokens",
    summary: "The input tokens a Messages request would read (the gateway's estimate; free)",
    tag: "Gateway",
    security: "apiKey",
    body: text.messagesSchema.omit({ max_tokens: true }),
  },
  {
    method: "get",
    path: "/v1/models",
    summary:
      "The models this key may use: OpenAI's list shape, or Anthropic's (paged with limit, after_id, before_id) when the key is sent in x-api-key or with anthropic-version",
    tag: "Gateway",
    security: "bearer",
  },
  {
    method: "get",
    path: "/v1/models/{id}",
    summary: "One model this key may use (404 otherwise), in the caller's shape",
    tag: "Gateway",
    security: "bearer",
  },
];

const operator: Documented[] = [
  {
    method: "post",
    path: "/api/admin/users",
    summary: "Create a user (quota = starting balance in micro-USD)",
    tag: "Operator",
    security: "operator",
    body: admin.createUserSchema,
  },
  { method: "get", path: "/api/admin/users", summary: "List users", tag: "Operator", security: "operator" },
  {
    method: "patch",
    path: "/api/admin/users/{id}",
    summary: "Disable/enable a user, change role, adjust balance",
    tag: "Operator",
    security: "operator",
    body: admin.updateUserSchema,
  },
  {
    method: "post",
    path: "/api/admin/keys",
    summary: "Create a key for a user (the full key appears only in this answer)",
    tag: "Operator",
    security: "operator",
    body: admin.createKeySchema,
  },
  { method: "get", path: "/api/admin/keys", summary: "List keys (?userId=)", tag: "Operator", security: "operator" },
  {
    method: "patch",
    path: "/api/admin/keys/{id}",
    summary:
      "Change a key: status is the operator's switch (the owner cannot lift it); a quota or expiry set here the owner may only tighten",
    tag: "Operator",
    security: "operator",
    body: admin.updateKeySchema,
  },
  { method: "delete", path: "/api/admin/keys/{id}", summary: "Revoke a key", tag: "Operator", security: "operator" },
  {
    method: "post",
    path: "/api/admin/groups",
    summary: "Create or update a group (which models its keys may call)",
    tag: "Operator",
    security: "operator",
    body: admin.groupSchema,
  },
  { method: "get", path: "/api/admin/groups", summary: "List groups", tag: "Operator", security: "operator" },
  {
    method: "post",
    path: "/api/admin/channels",
    summary: "Create an upstream channel",
    tag: "Operator",
    security: "operator",
    body: admin.createChannelSchema,
  },
  {
    method: "get",
    path: "/api/admin/channels",
    summary: "List channels (upstream keys are never returned)",
    tag: "Operator",
    security: "operator",
  },
  {
    method: "patch",
    path: "/api/admin/channels/{id}",
    summary: "Change a channel",
    tag: "Operator",
    security: "operator",
    body: admin.updateChannelSchema,
  },
  { method: "delete", path: "/api/admin/channels/{id}", summary: "Delete a channel", tag: "Operator", security: "operator" },
  {
    method: "post",
    path: "/api/admin/prices",
    summary: "Set a model's prices (USD per 1M tokens)",
    tag: "Operator",
    security: "operator",
    body: admin.priceSchema,
  },
  { method: "get", path: "/api/admin/prices", summary: "List prices", tag: "Operator", security: "operator" },
  {
    method: "post",
    path: "/api/admin/redeem-codes",
    summary: "Generate a batch of redeem codes (plain codes only in this answer)",
    tag: "Operator",
    security: "operator",
    body: admin.codesSchema,
  },
  {
    method: "get",
    path: "/api/admin/redeem-codes",
    summary: "List codes (?batch=) with their status",
    tag: "Operator",
    security: "operator",
  },
  {
    method: "get",
    path: "/api/admin/usage",
    summary: "The ledger, newest first (?userId=&keyId=&model=&kind=&requestId=&limit=&offset=)",
    tag: "Operator",
    security: "operator",
  },
  {
    method: "get",
    path: "/api/admin/settings",
    summary: "Sign-up open or not, groups users may pick",
    tag: "Operator",
    security: "operator",
  },
  {
    method: "post",
    path: "/api/admin/settings",
    summary: "Change those settings",
    tag: "Operator",
    security: "operator",
    body: settingsSchema,
  },
  { method: "get", path: "/api/admin/outbox", summary: "Mail written to the outbox (?to=)", tag: "Operator", security: "operator" },
];

function schemaOf(body: z.ZodType): unknown {
  try {
    return z.toJSONSchema(body, { io: "input", unrepresentable: "any" });
  } catch {
    return { type: "object" };
  }
}

export function openApiDocument(serverUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of [...gateway, ...imageDocs, ...responsesDocs, ...userDocs, ...operator]) {
    const parameters = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => ({
      name: match[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    const operation: Record<string, unknown> = {
      summary: route.summary,
      tags: [route.tag],
      security: SECURITY[route.security],
      ...(parameters.length ? { parameters } : {}),
      responses: {
        "200": {
          description: route.stream ? "JSON, or a server-sent event stream when streaming" : "Success",
          content: route.stream ? { "application/json": {}, "text/event-stream": {} } : { "application/json": {} },
        },
        "400": { description: "Invalid request (the error names the field)" },
        "401": { description: "Missing or invalid credentials" },
        "403": { description: "Not allowed (model not in the key's group, quota or balance used up, not an admin)" },
      },
    };
    if (route.body) operation.requestBody = { required: true, content: { "application/json": { schema: schemaOf(route.body) } } };
    if (route.multipart)
      operation.requestBody = {
        required: true,
        content: { "multipart/form-data": { schema: { type: "object", properties: route.multipart } } },
      };
    (paths[route.path] ??= {})[route.method] = operation;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Model Gateway",
      version: "1.0.0",
      description: "Image, Responses, Messages and Chat Completions endpoints, the account API and the operator API.",
    },
    servers: [{ url: serverUrl }],
    tags: [{ name: "Gateway" }, { name: "Account" }, { name: "Operator" }],
    components: {
      securitySchemes: {
        apiKeyBearer: { type: "http", scheme: "bearer", description: "An sk- key (all /v1 endpoints except /v1/messages)" },
        apiKeyHeader: { type: "apiKey", in: "header", name: "x-api-key", description: "An sk- key (/v1/messages)" },
        session: { type: "apiKey", in: "cookie", name: "next-auth.session-token", description: "A portal session" },
        masterKey: { type: "http", scheme: "bearer", description: "GATEWAY_MASTER_KEY" },
      },
    },
    paths,
  };
}
