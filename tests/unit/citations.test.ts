// Citations point to files in the repository (docs/architecture.md, "Style"; docs/decisions/README.md): every
// `docs/….md` and `bench/….md` path that a comment, doc or test names exists, a quoted section after such a path is a
// heading (or a bold run-in heading) of that file, a relative Markdown link from a doc reaches a file, and nothing
// cites a work item (an issue, a round, a numbered item or decision of a list kept outside the repository) instead of
// the behaviour or the doc that holds it. Every offender is reported with its file and line.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const repository = path.resolve(import.meta.dirname, "../..");

/** What is scanned, relative to the repository's root. */
const SCANNED = ["lib", "app", "components", "scripts", "bench", "docs", "tests", "README.md", "SECURITY.md", "server.ts", "proxy.ts"];
const TEXT_FILE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs|md|sh|css)$/;
/** Generated or installed trees, never written by hand. */
const SKIPPED_FOLDERS = new Set(["node_modules", "generated", ".next", "results"]);

/** A cited document: `docs/….md`, `bench/….md`, or the root's SECURITY.md and README.md, not inside a longer path. */
const CITED_PATH = /(?<![\w./-])((?:docs|bench)\/[\w./-]*?\.md|SECURITY\.md|README\.md)(?![\w/-])/g;
/** A cited section right after a cited path: `docs/x.md, "Section"`, `docs/x.md ("Section"`, with backticks or not. */
const CITED_SECTION = /^`?,? ?\(?["“]([^"”\n]+)["”]/;
/** A relative Markdown link in a doc: `[text](0012-name.md)` or `(../billing.md#anchor)`. */
const MARKDOWN_LINK = /\]\(((?![a-z]+:|#|\/)[^)\s#]+\.md)(?:#[^)]*)?\)/g;
/** Work-item citations: these name a list outside the repository, not what the code does. */
const WORK_ITEM = /decision [0-9]+|[Ii]ssue [0-9]+|items? [0-9]+(?![.,]?[0-9])|[Rr]ound [0-9]|design\/[a-z-]+\.md/g;
/** Lines where such words describe behaviour: the sustained-load test's two rounds of load. */
const BEHAVIOUR = [/\bround\("round [0-9]"\)/];

type Offender = { file: string; line: number; problem: string };

function filesUnder(root: string, entry: string): string[] {
  const full = path.join(root, entry);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return TEXT_FILE.test(entry) ? [entry] : [];
  const out: string[] = [];
  for (const name of readdirSync(full).sort()) {
    if (SKIPPED_FOLDERS.has(name)) continue;
    const child = path.join(full, name);
    if (statSync(child).isDirectory()) out.push(...filesUnder(root, path.join(entry, name)));
    else if (TEXT_FILE.test(name)) out.push(path.join(entry, name));
  }
  return out;
}

/** The headings of a Markdown file, lower-cased: `## Title` lines and bold run-in headings (`**Title.**`). */
function headingsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const line of text.split("\n")) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) out.add(heading[1].toLowerCase());
  }
  for (const bold of text.matchAll(/\*\*([^*\n]+?)\*\*/g)) out.add(bold[1].replace(/[.:]$/, "").toLowerCase());
  return out;
}

/** A cited name matches a heading that is that name, or that name followed by a parenthesis or a colon. */
function hasHeading(headings: Set<string>, cited: string): boolean {
  const name = cited.replace(/\s+/g, " ").toLowerCase();
  for (const heading of headings) {
    if (heading === name || heading.startsWith(`${name} (`) || heading.startsWith(`${name}:`)) return true;
  }
  return false;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Every citation problem under `root`, in file order. `self` (the file that holds these patterns) is not scanned. */
function citationOffenders(root: string, self?: string): Offender[] {
  const offenders: Offender[] = [];
  const headings = new Map<string, Set<string>>();
  const headingsFor = (file: string) => {
    let found = headings.get(file);
    if (!found) {
      found = headingsOf(readFileSync(path.join(root, file), "utf8"));
      headings.set(file, found);
    }
    return found;
  };
  for (const file of SCANNED.flatMap((entry) => filesUnder(root, entry))) {
    if (self && path.resolve(root, file) === path.resolve(self)) continue;
    const text = readFileSync(path.join(root, file), "utf8");
    for (const match of text.matchAll(CITED_PATH)) {
      const cited = match[1].replace(/\.+$/, "");
      const at = lineAt(text, match.index);
      if (!existsSync(path.join(root, cited))) {
        offenders.push({ file, line: at, problem: `cites ${cited}, which does not exist` });
        continue;
      }
      const section = CITED_SECTION.exec(text.slice(match.index + match[0].length));
      if (section && !hasHeading(headingsFor(cited), section[1])) {
        offenders.push({ file, line: at, problem: `cites section "${section[1]}" of ${cited}, which has no such heading` });
      }
    }
    if (file.endsWith(".md")) {
      for (const match of text.matchAll(MARKDOWN_LINK)) {
        const target = path.join(path.dirname(file), match[1]);
        if (!existsSync(path.join(root, target))) {
          offenders.push({ file, line: lineAt(text, match.index), problem: `links to ${match[1]}, which does not exist` });
        }
      }
    }
    const lines = text.split("\n");
    for (const match of text.matchAll(WORK_ITEM)) {
      const line = lines[lineAt(text, match.index) - 1];
      if (BEHAVIOUR.some((allowed) => allowed.test(line))) continue;
      offenders.push({
        file,
        line: lineAt(text, match.index),
        problem: `cites a work item ("${match[0]}"): name the behaviour or the doc that holds it`,
      });
    }
  }
  return offenders;
}

function report(offenders: Offender[]): string {
  return offenders.map((o) => `${o.file}:${o.line}: ${o.problem}`).join("\n");
}

test("every cited doc exists, every cited section is a heading of it, and nothing cites a work item", () => {
  const offenders = citationOffenders(repository, import.meta.filename);
  assert.equal(offenders.length, 0, `${offenders.length} citation problems:\n${report(offenders)}`);
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), "citations-"));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

test("the check reports each kind of problem with its file and line, and passes what is right", () => {
  const root = tree({
    "docs/billing.md":
      "# Billing\n\n## Money before work\n\n### Image tokens (`lib/money/image-tokens.ts`)\n\n**The ledger writer.** Rows.\n",
    "docs/decisions/README.md": "| 0001 | [Plain](0001-plain.md) |\n| 0002 | [Gone](0002-gone.md) |\n",
    "docs/decisions/0001-plain.md": "# 1. Plain\n\nSee [billing](../billing.md#money-before-work).\n",
    "lib/money/a.ts": [
      '// Fine: docs/billing.md, "Money before work"; docs/billing.md ("The ledger writer"); `bench/NOTES.md`.',
      '// Fine too: `docs/billing.md`, "Image tokens".',
      '// Missing file: docs/architecture.md, and a missing section: docs/billing.md, "Platform notes".',
      "// Work items: decision 8, issue 12, security item 3, round 2, design/security.md.",
      'const first = await round("round 1"); // behaviour, not a citation',
      "export const a = 1;",
    ].join("\n"),
    "bench/NOTES.md": "# Notes\n",
    "README.md": "Readme: `docs/billing.md` and bench/RESULTS.md.\n",
    "lib/money/a.json": "docs/ignored.md is not a scanned kind of file",
  });
  try {
    const found = report(citationOffenders(root));
    assert.equal(
      found,
      [
        "lib/money/a.ts:3: cites docs/architecture.md, which does not exist",
        'lib/money/a.ts:3: cites section "Platform notes" of docs/billing.md, which has no such heading',
        'lib/money/a.ts:4: cites a work item ("decision 8"): name the behaviour or the doc that holds it',
        'lib/money/a.ts:4: cites a work item ("issue 12"): name the behaviour or the doc that holds it',
        'lib/money/a.ts:4: cites a work item ("item 3"): name the behaviour or the doc that holds it',
        'lib/money/a.ts:4: cites a work item ("round 2"): name the behaviour or the doc that holds it',
        'lib/money/a.ts:4: cites a work item ("design/security.md"): name the behaviour or the doc that holds it',
        "docs/decisions/README.md:2: links to 0002-gone.md, which does not exist",
        "README.md:1: cites bench/RESULTS.md, which does not exist",
      ].join("\n"),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
