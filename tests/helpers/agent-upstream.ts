// A fake vendor that behaves like a model in an agent loop, for the real-client tests: while the conversation holds
// no tool result and tools are offered (or one is forced), it calls the first (or the forced) tool with arguments
// valid against the tool's JSON schema; once a tool result came back it answers with text that quotes it; a JSON
// schema response format gets a valid instance. OpenAI Chat Completions and Anthropic Messages, streamed or not.
import type http from "node:http";
import { startFakeUpstream, sendJson, sendSse, type FakeUpstream, type Received } from "./fake-upstream";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "./gateway";
import { ALL_MODELS } from "@/lib/catalog/models";

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
};

/** A small value valid against `schema` (the subset tool schemas use: objects, arrays, strings, numbers, enums). */
export function instanceOf(schema: Schema | undefined, name = "value"): unknown {
  if (!schema) return null;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.anyOf?.length) return instanceOf(schema.anyOf.find((option) => option.type !== "null") ?? schema.anyOf[0], name);
  const type = Array.isArray(schema.type) ? schema.type.find((entry) => entry !== "null") : schema.type;
  if (type === "object" || schema.properties) {
    const value: Record<string, unknown> = {};
    for (const [key, property] of Object.entries(schema.properties ?? {})) value[key] = instanceOf(property, key);
    return value;
  }
  if (type === "array") return [instanceOf(schema.items, name)];
  if (type === "integer" || type === "number") return 3;
  if (type === "boolean") return true;
  if (type === "null") return null;
  return name === "city" ? "Paris" : `${name} value`;
}

function lastToolResult(request: Received): string | null {
  const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[];
  const last = messages.at(-1);
  if (!last) return null;
  if (last.role === "tool") return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
  if (Array.isArray(last.content)) {
    const block = (last.content as { type?: string; content?: unknown }[]).find((entry) => entry.type === "tool_result");
    if (block) return typeof block.content === "string" ? block.content : JSON.stringify(block.content);
  }
  return null;
}

function chat(request: Received, response: http.ServerResponse): void {
  const body = request.body;
  const tools = (body.tools ?? []) as { function: { name: string; parameters?: Schema } }[];
  const forced =
    typeof body.tool_choice === "object"
      ? body.tool_choice?.function?.name
      : body.tool_choice === "required"
        ? tools[0]?.function.name
        : undefined;
  const result = lastToolResult(request);
  const usage = { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 };
  const base = { id: "chatcmpl-agent", created: 1_700_000_000, model: body.model };
  const tool = (forced ? tools.find((entry) => entry.function.name === forced) : tools[0])?.function;
  let message: Record<string, unknown>;
  let finish: string;
  if (tool && (forced || result === null)) {
    message = {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_agent_1", type: "function", function: { name: tool.name, arguments: JSON.stringify(instanceOf(tool.parameters)) } },
      ],
    };
    finish = "tool_calls";
  } else if (body.response_format?.type === "json_schema") {
    message = { role: "assistant", content: JSON.stringify(instanceOf(body.response_format.json_schema?.schema)) };
    finish = "stop";
  } else {
    message = { role: "assistant", content: result === null ? "Hello from the agent upstream." : `The tool said: ${result}` };
    finish = "stop";
  }
  if (!body.stream) {
    sendJson(response, 200, {
      ...base,
      object: "chat.completion",
      choices: [{ index: 0, message, finish_reason: finish, logprobs: null }],
      usage,
    });
    return;
  }
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) => ({
    data: { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finishReason }] },
  });
  const calls = message.tool_calls as { id: string; function: { name: string; arguments: string } }[] | undefined;
  void sendSse(response, [
    chunk({ role: "assistant", content: calls ? null : "" }, null),
    ...(calls
      ? [
          chunk(
            { tool_calls: [{ index: 0, id: calls[0]!.id, type: "function", function: { name: calls[0]!.function.name, arguments: "" } }] },
            null,
          ),
          chunk({ tool_calls: [{ index: 0, function: { arguments: calls[0]!.function.arguments } }] }, null),
        ]
      : [chunk({ content: message.content }, null)]),
    chunk({}, finish),
    { data: { ...base, object: "chat.completion.chunk", choices: [], usage } },
    { data: "[DONE]" },
  ]);
}

function messages(request: Received, response: http.ServerResponse): void {
  const body = request.body;
  const tools = (body.tools ?? []) as { name: string; input_schema?: Schema }[];
  const forced = body.tool_choice?.type === "tool" ? body.tool_choice.name : body.tool_choice?.type === "any" ? tools[0]?.name : undefined;
  const result = lastToolResult(request);
  const tool = forced ? tools.find((entry) => entry.name === forced) : tools[0];
  const base = { id: "msg_agent", type: "message", role: "assistant", model: body.model, stop_sequence: null };
  const usage = { input_tokens: 20, output_tokens: 10 };
  const content =
    tool && (forced || result === null)
      ? [{ type: "tool_use", id: "toolu_agent_1", name: tool.name, input: instanceOf(tool.input_schema) }]
      : [{ type: "text", text: result === null ? "Hello from the agent upstream." : `The tool said: ${result}` }];
  const stop = content[0]!.type === "tool_use" ? "tool_use" : "end_turn";
  if (!body.stream) {
    sendJson(response, 200, { ...base, content, stop_reason: stop, usage });
    return;
  }
  const block = content[0]!;
  void sendSse(response, [
    {
      event: "message_start",
      data: { type: "message_start", message: { ...base, content: [], stop_reason: null, usage: { input_tokens: 20, output_tokens: 1 } } },
    },
    block.type === "tool_use"
      ? { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { ...block, input: {} } } }
      : { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
    block.type === "tool_use"
      ? {
          event: "content_block_delta",
          data: {
            type: "content_block_delta",
            index: 0,
            delta: { type: "input_json_delta", partial_json: JSON.stringify((block as { input: unknown }).input) },
          },
        }
      : {
          event: "content_block_delta",
          data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: (block as { text: string }).text } },
        },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    {
      event: "message_delta",
      data: { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } },
    },
    { event: "message_stop", data: { type: "message_stop" } },
  ]);
}

export function startAgentUpstream(): Promise<FakeUpstream> {
  return startFakeUpstream((request, response) => {
    if (request.path.endsWith("/chat/completions")) return chat(request, response);
    if (request.path.endsWith("/messages")) return messages(request, response);
    response.writeHead(404).end();
  });
}

export type AgentSetup = { gateway: Gateway; agent: FakeUpstream; key: string; close: () => Promise<void> };

/**
 * A gateway whose operator-added models are served by the agent upstream: `agent-chat` on an openai channel and,
 * with `messages`, `agent-messages` on an anthropic one (both priced, in the default group), and a user key with $500.
 */
export async function startAgentGateway(
  options: { messages?: boolean; simulatorSettings?: Record<string, unknown> } = {},
): Promise<AgentSetup> {
  const gateway = await startGateway();
  const agent = await startAgentUpstream();
  const models = options.messages ? ["agent-chat", "agent-messages"] : ["agent-chat"];
  for (const model of models) await gateway.admin("POST", "/api/admin/prices", { model, textInput: 1, textOutput: 2 });
  await gateway.admin("POST", "/api/admin/groups", { name: "default", models: [...ALL_MODELS, ...models] });
  await gateway.admin("POST", "/api/admin/channels", {
    name: "agent openai",
    type: "openai",
    baseUrl: `${agent.url}/v1`,
    apiKey: "a",
    models: ["agent-chat"],
    priority: 100,
  });
  if (options.messages) {
    await gateway.admin("POST", "/api/admin/channels", {
      name: "agent anthropic",
      type: "anthropic",
      baseUrl: agent.url,
      apiKey: "a",
      models: ["agent-messages"],
      priority: 100,
    });
  }
  if (options.simulatorSettings) {
    const simulator = ((await gateway.admin("GET", "/api/admin/channels")).data as { id: string; type: string }[]).find(
      (channel) => channel.type === "simulator",
    )!;
    await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { settings: options.simulatorSettings });
  }
  const { key } = await createUserWithKey(gateway, { balance: 500_000_000, quota: 500_000_000 });
  return { gateway, agent, key, close: async () => void (await Promise.all([agent.close(), stopAllGateways()])) };
}
