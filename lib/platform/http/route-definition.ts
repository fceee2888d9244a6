// One definition per endpoint (docs/routes.md): method, path, who may call it, what it takes and what it answers, and
// its handler. The route table (lib/server/routes.ts), /openapi.json (lib/server/openapi.ts) and the portal's answer
// types (lib/portal/types.ts) are all read from the lists of these definitions, so they cannot disagree.
import { z } from "zod";
import type { Dialect } from "@/lib/platform/errors";

export type RouteHandler = (request: Request, params: Record<string, string>) => Promise<Response>;

export type RouteMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";

/** How a caller proves who they are (the OpenAPI security scheme). */
export type RouteAuth = "bearer" | "apiKey" | "googleKey" | "session" | "operator" | "none";

/** A multipart field as OpenAPI describes it (zod has no file type). */
export type MultipartField = { type: string; format?: string; description?: string };

export type RouteRequest = {
  /** The JSON body. Documentation and the route checks read it; the handler parses with it (or, on the /v1 text
   *  endpoints, with its own faster parser that this schema describes). */
  body?: z.ZodType;
  /** A multipart body, field by field. */
  multipart?: Record<string, MultipartField>;
  /** The query string's parameters (an object schema). */
  query?: z.ZodObject;
};

/** Answers by status. A JSON answer whose status has no schema here is off its contract. */
export type RouteAnswers = { [status: number]: z.ZodType };

export type RouteDefinition = {
  method: RouteMethod;
  /** With `{name}` for a path parameter. */
  path: string;
  auth: RouteAuth;
  summary: string;
  /** The error shape of its refusals; "caller" answers in the dialect the caller speaks (either of the two). */
  dialect: Dialect | "caller";
  request: RouteRequest;
  response: RouteAnswers;
  /** The success answer may be a server-sent event stream instead of JSON (not checked against the schema). */
  stream?: boolean;
  /** The media types of the success answer when it is not (only) JSON, e.g. `audio/mpeg`; an answer that is not
   *  JSON is not checked against the schema. */
  answerTypes?: readonly string[];
  handler: RouteHandler;
};

/** Keeps the literal types of a definition (its schemas stay named for `z.infer`). */
export function defineRoute<const Definition extends RouteDefinition>(definition: Definition): Definition {
  return definition;
}

/** A body without fields: the endpoint reads none (an empty object or no body at all). */
export const noBody = z.object({}).describe("No fields: send {} or no body");

/** `{error:{message,type,code,param}}`: /v1 in OpenAI's dialect (lib/platform/errors.ts); an upstream's refusal passed
 *  on may carry more fields. */
export const openaiErrorSchema = z.looseObject({
  error: z.looseObject({
    message: z.string(),
    type: z.string().nullable().optional(),
    code: z.union([z.string(), z.number()]).nullable().optional(),
    param: z.string().nullable().optional(),
  }),
});

/** The gateway's own refusals on the account, operator and portal APIs: the same shape, nothing beside `error`. */
export const plainErrorSchema = z.strictObject({
  error: z.object({
    message: z.string(),
    type: z.string(),
    code: z.string(),
    param: z.string().nullable().optional(),
  }),
});

/** `{type:"error",error:{type,message}}`: /v1/messages and Anthropic callers of /v1/models. */
export const anthropicErrorSchema = z.looseObject({
  type: z.literal("error"),
  error: z.looseObject({ type: z.string(), message: z.string() }),
});

/** `{error:{code,message,status}}`: Gemini's own API (/v1beta), the HTTP status in `code`, Google's name in `status`. */
export const googleErrorSchema = z.looseObject({
  error: z.looseObject({ code: z.number().int(), message: z.string(), status: z.string() }),
});

export function errorSchemaOf(dialect: RouteDefinition["dialect"]): z.ZodType {
  if (dialect === "anthropic") return anthropicErrorSchema;
  if (dialect === "google") return googleErrorSchema;
  if (dialect === "caller") return z.union([openaiErrorSchema, anthropicErrorSchema]);
  if (dialect === "plain") return plainErrorSchema;
  return openaiErrorSchema;
}

/** A JSON date as the answers carry it (ISO 8601 text). */
export const isoDate = z.string().describe("ISO 8601 date and time");
