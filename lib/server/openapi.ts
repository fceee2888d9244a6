// /openapi.json: an OpenAPI 3.1 document generated from the route definitions (lib/server/routes.ts lists them) and
// their zod schemas (zod 4's toJSONSchema): the same schemas the handlers validate with and the answer check parses
// the answers with, so the document cannot drift from what the gateway accepts and answers.
import { z } from "zod";
import {
  anthropicErrorSchema,
  googleErrorSchema,
  openaiErrorSchema,
  plainErrorSchema,
  type RouteAuth,
  type RouteDefinition,
} from "@/lib/platform/http/route-definition";
import { routeDefinitions } from "./routes";

const SECURITY: Record<RouteAuth, Record<string, string[]>[]> = {
  bearer: [{ apiKeyBearer: [] }],
  apiKey: [{ apiKeyHeader: [] }],
  googleKey: [{ googleKeyHeader: [] }, { googleKeyQuery: [] }],
  session: [{ session: [] }],
  operator: [{ masterKey: [] }, { session: [] }],
  none: [],
};

function tagOf(path: string): "Gateway" | "Account" | "Operator" {
  if (path.startsWith("/api/admin/")) return "Operator";
  if (path.startsWith("/api/user/") && !path.startsWith("/api/user/playground/v1/")) return "Account";
  return "Gateway";
}

/** A schema as JSON Schema (draft 2020-12, which OpenAPI 3.1 uses), for what the client sends or what it receives. */
function schemaOf(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  try {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
    return rest;
  } catch {
    return { type: "object" };
  }
}

const ERROR_DESCRIPTIONS: Record<string, string> = {
  "400": "Invalid request (the error names the field)",
  "401": "Missing or invalid credentials",
  "403": "Not allowed (model not in the key's group, quota or balance used up, not an admin)",
  "404": "No such object (or not yours)",
};

function errorContent(dialect: RouteDefinition["dialect"]): Record<string, unknown> {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const schema =
    dialect === "anthropic"
      ? ref("AnthropicError")
      : dialect === "google"
        ? ref("GoogleError")
        : dialect === "caller"
          ? { oneOf: [ref("Error"), ref("AnthropicError")] }
          : dialect === "plain"
            ? ref("PlainError")
            : ref("Error");
  return { "application/json": { schema } };
}

function operationOf(route: RouteDefinition): Record<string, unknown> {
  const parameters: Record<string, unknown>[] = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => ({
    name: match[1],
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  if (route.request.query) {
    const query = schemaOf(route.request.query, "input") as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, schema] of Object.entries(query.properties ?? {}))
      parameters.push({ name, in: "query", required: query.required?.includes(name) ?? false, schema });
  }
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(route.response)) {
    const json = { schema: schemaOf(schema, "output") };
    const content: Record<string, unknown> = route.stream
      ? { "application/json": json, "text/event-stream": {} }
      : { "application/json": json };
    if (route.answerTypes) {
      for (const type of Object.keys(content)) if (!route.answerTypes.includes(type)) delete content[type];
      for (const type of route.answerTypes)
        content[type] ??= type.startsWith("text/") ? { schema: { type: "string" } } : { schema: { type: "string", format: "binary" } };
    }
    responses[status] = { description: route.stream ? "JSON, or a server-sent event stream when streaming" : "Success", content };
  }
  for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS))
    responses[status] = { description, content: errorContent(route.dialect) };
  const operation: Record<string, unknown> = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/\{(\w+)\}/g, "By_$1").replace(/[^A-Za-z0-9]+(.)?/g, (_match, next?: string) => (next ?? "").toUpperCase())}`,
    summary: route.summary,
    tags: [tagOf(route.path)],
    security: SECURITY[route.auth],
    ...(parameters.length ? { parameters } : {}),
    responses,
  };
  if (route.request.body)
    operation.requestBody = {
      required: route.method !== "DELETE",
      content: { "application/json": { schema: schemaOf(route.request.body, "input") } },
    };
  if (route.request.multipart)
    operation.requestBody = {
      required: true,
      content: { "multipart/form-data": { schema: { type: "object", properties: route.request.multipart } } },
    };
  return operation;
}

export function openApiDocument(serverUrl: string, routes: readonly RouteDefinition[] = routeDefinitions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route);
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
      schemas: {
        Error: schemaOf(openaiErrorSchema, "output"),
        AnthropicError: schemaOf(anthropicErrorSchema, "output"),
        GoogleError: schemaOf(googleErrorSchema, "output"),
        PlainError: schemaOf(plainErrorSchema, "output"),
      },
      securitySchemes: {
        apiKeyBearer: { type: "http", scheme: "bearer", description: "An sk- key (all /v1 endpoints except /v1/messages)" },
        apiKeyHeader: { type: "apiKey", in: "header", name: "x-api-key", description: "An sk- key (/v1/messages)" },
        googleKeyHeader: { type: "apiKey", in: "header", name: "x-goog-api-key", description: "An sk- key (/v1beta, Gemini's API)" },
        googleKeyQuery: { type: "apiKey", in: "query", name: "key", description: "An sk- key (/v1beta, Gemini's API)" },
        session: { type: "apiKey", in: "cookie", name: "next-auth.session-token", description: "A portal session" },
        masterKey: { type: "http", scheme: "bearer", description: "GATEWAY_MASTER_KEY" },
      },
    },
    paths,
  };
}
