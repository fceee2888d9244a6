// A Messages request shaped like the ones Claude Code sends deep into a session: a long system prompt in blocks with
// cache_control, 24 tools with JSON schemas, and a conversation of tool calls whose results are source files, about
// 100,000 tokens in all, streaming. The text is generated from a fixed seed, so every run (and every commit) sends
// the same bytes. Used by bench/run.ts for the scenario where counting the input dominates the gateway's work.
import { mulberry32 } from "@/lib/platform/random";

const WORDS = (
  "the of and to a in is that for it as with be on not this are by or from at use when you can if an will do each " +
  "file code tool user task read write edit run test change command output should before after only must never " +
  "always project directory path line search result error message function return value type check work make sure " +
  "keep short clear first then next step answer question explain show find list open close build commit branch"
).split(" ");
const NAMES = (
  "request response channel ledger quota reserve settle token price model stream event buffer header body route " +
  "handler client server config option result error count usage limit cache store entry record batch queue"
).split(" ");
const TOOL_NAMES = [
  "Task",
  "Bash",
  "Glob",
  "Grep",
  "LS",
  "ExitPlanMode",
  "Read",
  "Edit",
  "MultiEdit",
  "Write",
  "NotebookRead",
  "NotebookEdit",
  "WebFetch",
  "TodoWrite",
  "WebSearch",
  "BashOutput",
  "KillBash",
  "SlashCommand",
  "ListMcpResources",
  "ReadMcpResource",
  "mcp__ide__getDiagnostics",
  "mcp__ide__executeCode",
  "AskUserQuestion",
  "Skill",
];

function prose(next: () => number, words: number): string {
  const out: string[] = [];
  for (let index = 0; index < words; index++) {
    let word = WORDS[Math.floor(next() * WORDS.length)]!;
    if (index === 0 || out[out.length - 1]!.endsWith(".")) word = word[0]!.toUpperCase() + word.slice(1);
    out.push(next() < 0.08 ? `${word}.` : next() < 0.05 ? `${word},` : word);
  }
  return `${out.join(" ")}.`;
}

function identifier(next: () => number): string {
  const first = NAMES[Math.floor(next() * NAMES.length)]!;
  const second = NAMES[Math.floor(next() * NAMES.length)]!;
  return first + second[0]!.toUpperCase() + second.slice(1);
}

/** A TypeScript-looking source file of about `chars` characters, as the Read tool returns it (numbered lines). */
function sourceFile(next: () => number, chars: number): string {
  const lines: string[] = [];
  let length = 0;
  let depth = 0;
  while (length < chars) {
    const pick = next();
    let line: string;
    if (depth === 0 || pick < 0.12) {
      line = `export function ${identifier(next)}(${identifier(next)}: ${NAMES[Math.floor(next() * NAMES.length)]}Like, limit = ${Math.floor(next() * 1000)}): number {`;
      depth = 1;
    } else if (pick < 0.35)
      line = `  const ${identifier(next)} = ${identifier(next)}.${identifier(next)}(${identifier(next)}, ${Math.floor(next() * 100)});`;
    else if (pick < 0.5) line = `  if (${identifier(next)} > limit) return ${identifier(next)}.length;`;
    else if (pick < 0.65) line = `  // ${prose(next, 6 + Math.floor(next() * 10))}`;
    else if (pick < 0.8) line = `  for (const ${identifier(next)} of ${identifier(next)}) total += ${identifier(next)}.size;`;
    else {
      line = "  return total;\n}\n";
      depth = 0;
    }
    lines.push(`${String(lines.length + 1).padStart(6)}\u2192${line}`);
    length += line.length + 8;
  }
  return lines.join("\n");
}

function tool(next: () => number, name: string): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const count = 2 + Math.floor(next() * 5);
  for (let index = 0; index < count; index++) {
    const property = identifier(next).replace(/^./, (c) => c.toLowerCase());
    properties[property] =
      next() < 0.7
        ? { type: "string", description: prose(next, 10 + Math.floor(next() * 20)) }
        : { type: "number", description: prose(next, 8 + Math.floor(next() * 10)) };
    if (next() < 0.5) required.push(property);
  }
  return {
    name,
    description: prose(next, 150 + Math.floor(next() * 300)),
    input_schema: {
      type: "object",
      properties,
      required,
      additionalProperties: false,
      $schema: "http://json-schema.org/draft-07/schema#",
    },
  };
}

/** The request body (as an object) for `model`; `events` and `gapMs` go to the bench's fake upstream. */
export function claudeCodeBody(model: string, options: { events: number; gapMs: number }): Record<string, unknown> {
  const next = mulberry32(20_251_126);
  const system = [
    { type: "text", text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: "ephemeral" } },
    { type: "text", text: Array.from({ length: 12 }, () => prose(next, 180)).join("\n\n"), cache_control: { type: "ephemeral" } },
  ];
  const tools = TOOL_NAMES.map((name) => tool(next, name));
  const messages: Record<string, unknown>[] = [{ role: "user", content: [{ type: "text", text: prose(next, 40) }] }];
  for (let turn = 0; turn < 40; turn++) {
    const id = `toolu_bench${String(turn).padStart(4, "0")}`;
    messages.push({
      role: "assistant",
      content: [
        { type: "text", text: prose(next, 20 + Math.floor(next() * 40)) },
        { type: "tool_use", id, name: "Read", input: { file_path: `/work/project/lib/${identifier(next)}.ts` } },
      ],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: id, content: sourceFile(next, 6_000 + Math.floor(next() * 4_000)) }],
    });
  }
  messages.push({ role: "user", content: [{ type: "text", text: prose(next, 60), cache_control: { type: "ephemeral" } }] });
  return {
    model,
    max_tokens: 32_000,
    system,
    tools,
    messages,
    metadata: { user_id: "user_bench_account__session_00000000-0000-0000-0000-000000000000" },
    stream: true,
    bench_events: options.events,
    bench_event_gap_ms: options.gapMs,
  };
}
