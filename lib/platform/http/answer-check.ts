// The answer check (docs/routes.md): with GATEWAY_CHECK_ANSWERS=1 the route table wraps each handler so that every
// JSON answer is parsed with the schema its definition declares for that status (errors with the dialect's error
// schema). An answer off its schema is logged and replaced by a 500 naming the route and the path, so a test that
// calls the endpoint fails. Off in production: the table is then built with the handlers as they are.
import { DirectResponse, responseHeader } from "./direct-body";
import { errorResponse, GatewayError } from "@/lib/platform/errors";
import { log } from "@/lib/platform/log";
import { errorSchemaOf, type RouteDefinition, type RouteHandler } from "./route-definition";

/** The answer's JSON text, or null when it is not JSON or is streamed (a stream is not read here). */
async function jsonTextOf(response: Response): Promise<string | null> {
  const type = responseHeader(response, "content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/json")) return null;
  if (response instanceof DirectResponse) {
    const parts: string[] = [];
    for (const part of response.parts) {
      if (typeof part === "string") parts.push(part);
      else if (part instanceof Uint8Array) parts.push(Buffer.from(part).toString("utf8"));
      else return null;
    }
    return parts.join("");
  }
  if (!response.body) return "";
  return response.clone().text();
}

/** Null when the answer keeps its definition's contract; otherwise what is wrong with it. */
export async function answerProblem(definition: RouteDefinition, response: Response): Promise<string | null> {
  const text = await jsonTextOf(response);
  if (text === null) return null;
  const schema = response.status >= 400 ? errorSchemaOf(definition.dialect) : definition.response[response.status];
  if (!schema) return `status ${response.status} is not among the declared answers (${Object.keys(definition.response).join(", ")})`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `the ${response.status} answer is not valid JSON`;
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return null;
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
  return `the ${response.status} answer does not match its schema: ${issues}`;
}

/** The definition's handler, with its answers checked against the definition. */
export function checkingAnswers(definition: RouteDefinition): RouteHandler {
  return async (request, params) => {
    const response = await definition.handler(request, params);
    const problem = await answerProblem(definition, response);
    if (problem === null) return response;
    const pathname = new URL(request.url).pathname;
    const message = `Answer check failed for ${definition.method} ${definition.path} (${pathname}): ${problem}`;
    log.error("answer off its schema", { route: `${definition.method} ${definition.path}`, path: pathname, problem });
    return errorResponse(
      new GatewayError("internal_error", message),
      definition.dialect === "anthropic" || definition.dialect === "google" ? definition.dialect : "plain",
    );
  };
}
