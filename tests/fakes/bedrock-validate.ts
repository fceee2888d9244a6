// The request checks of the Bedrock runtime fake (tests/fakes/bedrock.ts), with Bedrock's ValidationException
// messages. Invoke bodies for Anthropic models are a closed JSON schema: a key the schema does not know (`model`,
// `stream`) is refused as "extraneous key [model] is not permitted", and `anthropic_version` must be the documented
// `bedrock-2023-05-31` (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html).

const MALFORMED = "Malformed input request, please reformat your input and try again.";

function schemaError(detail: string): string {
  return `Malformed input request: ${detail}, please reformat your input and try again.`;
}

/** Returns the ValidationException message for an Invoke body, or null when Bedrock would take it. */
export function validateInvokeBody(body: unknown, raw: Buffer, anthropicVersions: string[]): string | null {
  if (raw.length === 0 || body === null || typeof body !== "object" || Array.isArray(body)) return MALFORMED;
  const fields = body as Record<string, unknown>;
  for (const key of ["model", "stream"]) {
    if (key in fields) return schemaError(`#: extraneous key [${key}] is not permitted`);
  }
  if (!("anthropic_version" in fields)) return schemaError("#: required key [anthropic_version] not found");
  if (typeof fields.anthropic_version !== "string" || !anthropicVersions.includes(fields.anthropic_version)) {
    return `Invalid API version: anthropic_version must be one of ${anthropicVersions.join(", ")}; got ${JSON.stringify(fields.anthropic_version)}`;
  }
  if (!("max_tokens" in fields)) return schemaError("#: required key [max_tokens] not found");
  if (!Number.isInteger(fields.max_tokens) || (fields.max_tokens as number) < 1) {
    return schemaError(`#/max_tokens: expected type: Integer, found: ${typeof fields.max_tokens}`);
  }
  if (!Array.isArray(fields.messages)) return schemaError("#: required key [messages] not found");
  if (fields.messages.length === 0) return schemaError("#/messages: expected minimum item count: 1, found: 0");
  return null;
}

/** Returns the ValidationException message for a Converse body, or null when Bedrock would take it. */
export function validateConverseBody(body: unknown): string | null {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return MALFORMED;
  const messages = (body as Record<string, unknown>).messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    return "A conversation must start with a user message. Try again with a conversation that starts with a user message.";
  }
  for (const message of messages) {
    const role = (message as { role?: unknown })?.role;
    if (role !== "user" && role !== "assistant") {
      return `1 validation error detected: Value '${String(role)}' at 'messages.1.member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]`;
    }
    if (!Array.isArray((message as { content?: unknown }).content)) {
      return "1 validation error detected: Value null at 'messages.1.member.content' failed to satisfy constraint: Member must not be null";
    }
  }
  if ((messages[0] as { role: string }).role !== "user") {
    return "A conversation must start with a user message. Try again with a conversation that starts with a user message.";
  }
  return null;
}
