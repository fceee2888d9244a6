// The request Claude Code sends (POST /v1/messages?beta=true with a `system` turn inside `messages`, adaptive thinking,
// context_management, output_config, ~24 tools, max_tokens 32000 and its betas): accepted, passed to an anthropic
// upstream as sent (fields and allowlisted betas), with the system turn in place for an openai upstream, and served by
// the simulator. The CLI itself is driven in the real-clients tests.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "../helpers/gateway";
import { startBillingUpstream, type BillingUpstream } from "../helpers/billing-upstream";

let gateway: Gateway;
let key: string;
let upstream: BillingUpstream;

before(async () => {
  gateway = await startGateway();
  ({ key } = await createUserWithKey(gateway, { balance: 100_000_000, quota: 100_000_000 }));
  upstream = await startBillingUpstream();
});
after(async () => {
  await upstream.close();
  await stopAllGateways();
});

const BETAS =
  "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,effort-2025-11-24,mid-conversation-system-2026-04-07";

function claudeCodeRequest(model: string) {
  const tools = Array.from({ length: 24 }, (_, index) => ({
    name: `Tool${index}`,
    description: `Tool number ${index}, as Claude Code describes its Bash, Read, Edit, Grep and friends.`,
    input_schema: { type: "object", properties: { path: { type: "string" }, command: { type: "string" } }, required: ["command"] },
  }));
  return {
    model,
    max_tokens: 32_000,
    stream: true,
    system: [{ type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } }],
    messages: [
      { role: "user", content: [{ type: "text", text: "List the files." }] },
      { role: "system", content: "The working directory changed to /repo." },
      { role: "user", content: "Now read README.md." },
    ],
    tools,
    thinking: { type: "adaptive" },
    context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
    output_config: { effort: "high" },
    metadata: { user_id: "user_abc_account_def_session_123" },
  };
}

async function send(body: unknown) {
  const response = await fetch(`${gateway.url}/v1/messages?beta=true`, {
    method: "POST",
    headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "anthropic-beta": BETAS, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describe("Claude Code's request", () => {
  test("the simulator serves it", async () => {
    const { status, text } = await send(claudeCodeRequest("msg-sonnet-4-6"));
    assert.equal(status, 200, text);
    assert.match(text, /event: message_stop/);
  });

  test("an anthropic upstream receives it as sent: the system turn in place, every field, the betas on the list", async () => {
    const channel = (
      await gateway.admin("POST", "/api/admin/channels", {
        name: "anthropic",
        type: "anthropic",
        baseUrl: upstream.url,
        apiKey: "a",
        models: ["msg-sonnet-4-6"],
        priority: 100,
      })
    ).id;
    try {
      const body = claudeCodeRequest("msg-sonnet-4-6");
      const { status, text } = await send(body);
      assert.equal(status, 200, text);
      const received = upstream.bills.at(-1)!;
      assert.deepEqual(received.body.messages, body.messages);
      for (const field of [
        "system",
        "tools",
        "thinking",
        "context_management",
        "output_config",
        "metadata",
        "max_tokens",
        "stream",
      ] as const) {
        assert.deepEqual(received.body[field], body[field], field);
      }
      assert.equal(received.headers["anthropic-beta"], BETAS);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channel}`);
    }
  });

  test("an openai upstream gets the system turn as a system message in place", async () => {
    const channel = (
      await gateway.admin("POST", "/api/admin/channels", {
        name: "openai",
        type: "openai",
        baseUrl: `${upstream.url}/v1`,
        apiKey: "o",
        models: ["msg-sonnet-4-6"],
        priority: 100,
      })
    ).id;
    try {
      const { status, text } = await send({
        ...claudeCodeRequest("msg-sonnet-4-6"),
        thinking: undefined,
        context_management: undefined,
        output_config: undefined,
      });
      assert.equal(status, 200, text);
      const roles = upstream.bills.at(-1)!.body.messages.map((message: { role: string }) => message.role);
      assert.deepEqual(roles, ["system", "user", "system", "user"]);
      assert.equal(upstream.bills.at(-1)!.body.max_completion_tokens, 32_000);
    } finally {
      await gateway.admin("DELETE", `/api/admin/channels/${channel}`);
    }
  });

  test("a model that does not read system turns gets them as user turns, in place", async () => {
    const channel = (
      await gateway.admin("POST", "/api/admin/channels", {
        name: "anthropic",
        type: "anthropic",
        baseUrl: upstream.url,
        apiKey: "a",
        models: ["msg-haiku-4-5-20251001"],
        priority: 100,
      })
    ).id;
    await gateway.admin("PUT", "/api/admin/catalog/msg-haiku-4-5-20251001", { override: { systemInMessages: false } });
    try {
      const { status, text } = await send(claudeCodeRequest("msg-haiku-4-5-20251001"));
      assert.equal(status, 200, text);
      assert.deepEqual(upstream.bills.at(-1)!.body.messages[1], {
        role: "user",
        content: "[system] The working directory changed to /repo.",
      });
    } finally {
      await gateway.admin("PUT", "/api/admin/catalog/msg-haiku-4-5-20251001", { override: null });
      await gateway.admin("DELETE", `/api/admin/channels/${channel}`);
    }
  });
});
