// Runs the Claude Code CLI against a gateway, for tests/clients/claude-code.test.ts, which starts this script inside a
// network namespace of its own (only loopback): the gateway, a fake vendor and the CLI all run here, so nothing the
// CLI might try reaches past this machine. Prints one JSON line with what the CLI answered and what the vendor received.
//   node --import tsx tests/clients/claude-code-runner.ts
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createUserWithKey, startGateway, stopAllGateways } from "../helpers/gateway";
import { sendJson, sendSse, startFakeUpstream, type Received } from "../helpers/fake-upstream";

const MARKER = "gateway-tool-marker-7f3a";

function toolResultOf(request: Received): string | null {
  const last = request.body?.messages?.at(-1);
  const block = Array.isArray(last?.content) ? last.content.find((entry: { type?: string }) => entry.type === "tool_result") : undefined;
  if (!block) return null;
  return typeof block.content === "string" ? block.content : JSON.stringify(block.content);
}

async function main() {
  const workdir = mkdtempSync(path.join(tmpdir(), "claude-code-work-"));
  const home = mkdtempSync(path.join(tmpdir(), "claude-code-home-"));
  const file = path.join(workdir, "notes.txt");
  writeFileSync(file, `The secret word is ${MARKER}.\n`);

  // The vendor behind msg-opus-4-6: asks for the Read tool on the notes file, then answers with what it read; streamed
  // when asked, as the vendor does.
  const vendor = await startFakeUpstream((request, response) => {
    const body = request.body ?? {};
    const usage = { input_tokens: 50, output_tokens: 20 };
    const base = { id: "msg_vendor", type: "message", role: "assistant", model: body.model, stop_sequence: null };
    const result = toolResultOf(request);
    const offersRead = Array.isArray(body.tools) && body.tools.some((tool: { name?: string }) => tool.name === "Read");
    const block =
      offersRead && result === null
        ? { type: "tool_use", id: "toolu_vendor_1", name: "Read", input: { file_path: file } }
        : { type: "text", text: result === null ? "Plain answer." : `I read it: ${result.includes(MARKER) ? MARKER : "nothing"}` };
    const stop = block.type === "tool_use" ? "tool_use" : "end_turn";
    if (!body.stream) return sendJson(response, 200, { ...base, content: [block], stop_reason: stop, usage });
    void sendSse(response, [
      {
        event: "message_start",
        data: {
          type: "message_start",
          message: { ...base, content: [], stop_reason: null, usage: { input_tokens: 50, output_tokens: 1 } },
        },
      },
      {
        event: "content_block_start",
        data: {
          type: "content_block_start",
          index: 0,
          content_block: block.type === "tool_use" ? { ...block, input: {} } : { type: "text", text: "" },
        },
      },
      {
        event: "content_block_delta",
        data: {
          type: "content_block_delta",
          index: 0,
          delta:
            block.type === "tool_use"
              ? { type: "input_json_delta", partial_json: JSON.stringify(block.input) }
              : { type: "text_delta", text: block.text },
        },
      },
      { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
      {
        event: "message_delta",
        data: { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } },
      },
      { event: "message_stop", data: { type: "message_stop" } },
    ]);
  });

  const gateway = await startGateway();
  await gateway.admin("POST", "/api/admin/channels", {
    name: "vendor",
    type: "anthropic",
    baseUrl: vendor.url,
    apiKey: "v",
    models: ["msg-opus-4-6"],
    priority: 100,
  });
  const { key } = await createUserWithKey(gateway, { balance: 500_000_000, quota: 500_000_000 });

  const run = (prompt: string, model: string, baseUrl = gateway.url) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        path.resolve("node_modules/.bin/claude"),
        ["-p", prompt, "--output-format", "json", "--max-turns", "4", "--model", model, "--allowedTools", "Read"],
        {
          cwd: workdir,
          env: {
            PATH: process.env.PATH ?? "",
            HOME: home,
            ANTHROPIC_BASE_URL: baseUrl,
            // The gateway's key goes in ANTHROPIC_API_KEY (x-api-key), not ANTHROPIC_AUTH_TOKEN (a Bearer token).
            ANTHROPIC_API_KEY: key,
            ANTHROPIC_DEFAULT_OPUS_MODEL: "msg-opus-4-6",
            ANTHROPIC_DEFAULT_SONNET_MODEL: "msg-sonnet-4-6",
            ANTHROPIC_DEFAULT_HAIKU_MODEL: "msg-haiku-4-5-20251001",
            DISABLE_TELEMETRY: "1",
            DISABLE_ERROR_REPORTING: "1",
            DISABLE_AUTOUPDATER: "1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          } as unknown as NodeJS.ProcessEnv,
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => (stdout += chunk));
      child.stderr.on("data", (chunk) => (stderr += chunk));
      const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });

  // First straight to the vendor, to see what the CLI sends on its own (its betas), then through the gateway.
  await run("Say hello in five words.", "msg-opus-4-6", vendor.url);
  const direct = vendor.received.splice(0).map((request) => request.headers["anthropic-beta"] ?? null);
  const plain = await run("Say hello in five words.", "msg-sonnet-4-6");
  const withTool = await run("What is the secret word in notes.txt?", "msg-opus-4-6");
  const ledger = (await gateway.admin("GET", "/api/admin/usage?limit=100")).data as {
    endpoint: string;
    model: string;
    status: string;
    cost: number;
  }[];
  const received = vendor.received.map((request) => ({
    path: request.path,
    beta: request.headers["anthropic-beta"] ?? null,
    tools: Array.isArray(request.body?.tools) ? request.body.tools.length : 0,
    maxTokens: request.body?.max_tokens,
    systemTurns: (request.body?.messages ?? []).filter((message: { role: string }) => message.role === "system").length,
    toolResult: toolResultOf(request),
  }));
  process.stdout.write(
    `${JSON.stringify({ plain, withTool, marker: MARKER, direct, received, ledger, gatewayLog: gateway.output().slice(-4000) })}\n`,
  );
  await vendor.close();
  await stopAllGateways();
}

await main();
