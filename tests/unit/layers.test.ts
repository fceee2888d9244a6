// The layering of lib/ (scripts/check-layers.mjs, docs/architecture.md "Layers"): the real tree holds it, and the
// check catches what would break it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { checkLayers, checkOutside, MAX_LINES } from "../../scripts/check-layers.mjs";

const repository = path.resolve(import.meta.dirname, "../..");

test("lib/ as committed: arrows point down, one import style, no file over the line limit", () => {
  assert.deepEqual(checkLayers(repository), []);
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), "layers-"));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

test("a provider importing an endpoint, a peer importing a peer, a climb out of the folder: each reported", (t) => {
  const root = tree({
    "lib/platform/log.ts": "export const log = 1;\n",
    "lib/gateway/stream.ts": 'import { log } from "@/lib/platform/log";\nexport const relay = log;\n',
    "lib/providers/openai/chat.ts": '// a comment\nimport { relay } from "@/lib/gateway/stream";\nexport const chat = relay;\n',
    "lib/keys/format.ts": 'import { channel } from "@/lib/channels/index";\nexport const key = channel;\n',
    "lib/channels/index.ts": 'import { log } from "../platform/log";\nexport const channel = log;\n',
  });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const problems = checkLayers(root);
  assert.equal(problems.length, 3, problems.join("\n"));
  assert.match(problems.find((line) => line.startsWith("lib/providers/openai/chat.ts:2:"))!, /lib\/gateway is above lib\/providers/);
  assert.match(problems.find((line) => line.startsWith("lib/keys/format.ts:1:"))!, /lib\/channels is a peer of lib\/keys/);
  assert.match(problems.find((line) => line.startsWith("lib/channels/index.ts:1:"))!, /climbs out of its folder/);
});

test("type-only imports upward are allowed; a value import next to a type is not", (t) => {
  const root = tree({
    "lib/gateway/pipeline.ts": "export type Context = { id: string };\nexport const wrap = 1;\n",
    "lib/money/a.ts": 'import type { Context } from "@/lib/gateway/pipeline";\nexport type A = Context;\n',
    "lib/money/b.ts": 'import { type Context } from "@/lib/gateway/pipeline";\nexport type B = Context;\n',
    "lib/money/c.ts": 'import { type Context, wrap } from "@/lib/gateway/pipeline";\nexport const c: Context | number = wrap;\n',
    "lib/money/d.ts": 'export type { Context } from "@/lib/gateway/pipeline";\n',
  });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const problems = checkLayers(root);
  assert.equal(problems.length, 1, problems.join("\n"));
  assert.match(problems[0]!, /^lib\/money\/c\.ts:1: lib\/money imports '@\/lib\/gateway\/pipeline'/);
});

test("a folder with no layer, a file at the top of lib/ and an overlong file are reported", (t) => {
  const root = tree({
    "lib/helpers/x.ts": "export const x = 1;\n",
    "lib/loose.ts": "export const y = 1;\n",
    "lib/wire/long.ts": "export const z = 1;\n".repeat(MAX_LINES + 1),
  });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const problems = checkLayers(root);
  assert.equal(problems.length, 3, problems.join("\n"));
  assert.ok(problems.some((line) => /lib\/helpers\/ has no layer/.test(line)));
  assert.ok(problems.some((line) => /lib\/loose\.ts: a file at the top of lib/.test(line)));
  assert.ok(problems.some((line) => /lib\/wire\/long\.ts: 602 lines/.test(line)));
});

test("outside lib/, a relative path into lib/ is reported; @/lib/… is the one style", (t) => {
  const root = tree({
    "lib/platform/log.ts": "export const log = 1;\n",
    "tests/unit/a.test.ts": 'import { log } from "../../lib/platform/log";\nimport { x } from "../helpers/x";\n',
    "tests/unit/b.test.ts": 'import { log } from "@/lib/platform/log";\n',
  });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  assert.deepEqual(checkOutside(root), ["tests/unit/a.test.ts:1: imports '../../lib/platform/log'; write '@/lib/platform/log'"]);
  assert.deepEqual(checkOutside(repository), []);
});

test("provider subfolders are peers: one importing another is reported; shared files in lib/providers/ are not", (t) => {
  const root = tree({
    "lib/platform/log.ts": "export const log = 1;\n",
    "lib/providers/http.ts": 'import { log } from "@/lib/platform/log";\nexport const fetchIt = log;\n',
    "lib/providers/index.ts": 'import { chat } from "./openai/chat";\nexport const all = [chat];\n',
    "lib/providers/anthropic/convert/common.ts": "export const DEFAULT_MAX_TOKENS = 4096;\n",
    "lib/providers/anthropic/messages.ts":
      'import { DEFAULT_MAX_TOKENS } from "./convert/common";\nexport const cap = DEFAULT_MAX_TOKENS;\n',
    "lib/providers/openai/chat.ts":
      'import { fetchIt } from "@/lib/providers/http";\nimport { DEFAULT_MAX_TOKENS } from "@/lib/providers/anthropic/convert/common";\nexport const chat = fetchIt + DEFAULT_MAX_TOKENS;\n',
    "lib/providers/simulator/text.ts": 'import type { cap } from "@/lib/providers/anthropic/messages";\nexport type Cap = typeof cap;\n',
  });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const problems = checkLayers(root);
  assert.equal(problems.length, 1, problems.join("\n"));
  assert.match(
    problems[0]!,
    /^lib\/providers\/openai\/chat\.ts:2: lib\/providers\/openai imports .* lib\/providers\/anthropic\/ is its peer/,
  );
});

test("lib/dialects/ imports only lib/platform and lib/wire, though its layer sits above more", (t) => {
  const root = tree({
    "lib/platform/errors.ts": "export const fail = 1;\n",
    "lib/catalog/models.ts": "export const MODELS = [];\n",
    "lib/wire/raw-json.ts": "export const raw = 1;\n",
    "lib/dialects/chat/wire.ts":
      'import { raw } from "@/lib/wire/raw-json";\nimport { fail } from "@/lib/platform/errors";\nexport const chat = raw + fail;\n',
    "lib/dialects/convert/common.ts": 'import { MODELS } from "@/lib/catalog/models";\nexport const n = MODELS.length;\n',
    "lib/dialects/convert/types.ts": 'import type { MODELS } from "@/lib/catalog/models";\nexport type M = typeof MODELS;\n',
  });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const problems = checkLayers(root);
  assert.equal(problems.length, 1, problems.join("\n"));
  assert.match(problems[0]!, /^lib\/dialects\/convert\/common\.ts:1: .*may import only lib\/platform and lib\/wire/);
});
