// Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time aggregated by function + script, top N with
// percentages, then by script/package, and the inclusive time of the gateway's own functions.
//   node --import tsx bench/profile-summary.ts <file.cpuprofile> [--top 20] [--from <µs> --to <µs>]
//   node --import tsx bench/profile-summary.ts <file.cpuprofile> --results /tmp/bench-results.partial.json --scenario chat-c50
// --from/--to (CLOCK_MONOTONIC µs, the profile's own clock) keep only the samples of a window; with --results, the
// window of that scenario's measured gateway run as bench/run.ts recorded it (so start-up and idle time are left out).
import { readFileSync } from "node:fs";
import path from "node:path";

type CallFrame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
type Profile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] };

function option(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? process.argv[index + 1] : undefined;
}

const file = process.argv[2];
if (!file || file.startsWith("--")) {
  process.stderr.write(
    "usage: bench/profile-summary.ts <file.cpuprofile> [--top 20] [--from µs --to µs | --results results.json --scenario id [--database sqlite]]\n",
  );
  process.exit(2);
}
const top = Number(option("top") ?? 20);
let from = option("from") ? Number(option("from")) : -Infinity;
let to = option("to") ? Number(option("to")) : Infinity;
const resultsFile = option("results");
if (resultsFile) {
  const scenario = option("scenario") ?? "chat-c50";
  const database = option("database") ?? "sqlite";
  const results = JSON.parse(readFileSync(resultsFile, "utf8")) as {
    results: { id: string; database: string; window?: { startUs: number; endUs: number } }[];
  };
  const found = results.results.find((result) => result.id === scenario && result.database === database)?.window;
  if (!found) throw new Error(`no window for ${scenario} on ${database} in ${resultsFile}`);
  from = found.startUs;
  to = found.endUs;
}

const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

const ROOT = path.resolve(import.meta.dirname, "..");
function shortUrl(url: string): string {
  if (!url) return "";
  let clean = url.replace(/^file:\/\//, "");
  const modules = clean.lastIndexOf("/node_modules/");
  if (modules >= 0) return `npm:${clean.slice(modules + "/node_modules/".length)}`;
  if (clean.startsWith(ROOT)) clean = clean.slice(ROOT.length + 1);
  return clean;
}

/** Which package or project area a script belongs to. */
function areaOf(url: string): string {
  if (!url) return "(native / V8)";
  const short = shortUrl(url);
  if (short.startsWith("npm:")) {
    const parts = short.slice(4).split("/");
    return `npm:${parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  if (short.startsWith("node:")) return "node: core";
  return short;
}

const key = (frame: CallFrame) => `${frame.functionName || "(anonymous)"}\u0000${frame.url}\u0000${frame.lineNumber}`;

// Sample i lasts until the next sample (Chrome DevTools' model): duration = timestamp[i+1] − timestamp[i].
const self = new Map<string, { frame: CallFrame; us: number }>();
const inclusive = new Map<string, { frame: CallFrame; us: number }>();
const areas = new Map<string, number>();
/** Self time charged to the nearest frame on the stack that is the project's own code (lib/, server.ts). */
const attributed = new Map<string, { frame: CallFrame | null; us: number }>();
const isProject = (url: string) => {
  const short = shortUrl(url);
  return short.startsWith("lib/") || short === "server.ts";
};
let total = 0;
let idle = 0;
let timestamp = profile.startTime;
const stamps: number[] = [];
for (const delta of profile.timeDeltas) stamps.push((timestamp += delta));
for (let index = 0; index < profile.samples.length; index++) {
  const at = stamps[index]!;
  const next = index + 1 < stamps.length ? stamps[index + 1]! : profile.endTime;
  if (at < from || at > to) continue;
  const duration = Math.max(0, next - at);
  const node = byId.get(profile.samples[index]!)!;
  total += duration;
  if (node.callFrame.functionName === "(idle)") idle += duration;
  const selfKey = key(node.callFrame);
  const entry = self.get(selfKey) ?? { frame: node.callFrame, us: 0 };
  entry.us += duration;
  self.set(selfKey, entry);
  const area = ["(idle)", "(program)", "(garbage collector)"].includes(node.callFrame.functionName)
    ? node.callFrame.functionName
    : areaOf(node.callFrame.url);
  areas.set(area, (areas.get(area) ?? 0) + duration);
  let owner: CallFrame | null = null;
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    const frame = byId.get(id)!.callFrame;
    if (isProject(frame.url)) {
      owner = frame;
      break;
    }
  }
  if (node.callFrame.functionName !== "(idle)") {
    const ownerKey = owner
      ? key(owner)
      : node.callFrame.functionName.startsWith("(")
        ? node.callFrame.functionName
        : "(outside the project's code)";
    const charged = attributed.get(ownerKey) ?? { frame: owner, us: 0 };
    charged.us += duration;
    attributed.set(ownerKey, charged);
  }
  // Inclusive: every distinct function on the stack once.
  const onStack = new Set<string>();
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    const frame = byId.get(id)!.callFrame;
    const frameKey = key(frame);
    if (onStack.has(frameKey)) continue;
    onStack.add(frameKey);
    const inc = inclusive.get(frameKey) ?? { frame, us: 0 };
    inc.us += duration;
    inclusive.set(frameKey, inc);
  }
}

const busy = total - idle;
const ms = (us: number) => (us / 1000).toFixed(1);
const pct = (us: number, of: number) => ((us / of) * 100).toFixed(1);
/**
 * Where a function is. tsx compiles TypeScript with whitespace removed (most of a module is on its first line), so
 * for the project's own .ts files the line is looked up by the function's name in the source instead.
 */
const sources = new Map<string, string[] | null>();
function sourceLine(url: string, name: string): number | null {
  const file = url.replace(/^file:\/\//, "");
  if (!file.startsWith(ROOT) || file.includes("/node_modules/") || !/\.tsx?$/.test(file) || !name || name.startsWith("(")) return null;
  if (!sources.has(file)) {
    try {
      sources.set(file, readFileSync(file, "utf8").split("\n"));
    } catch {
      sources.set(file, null);
    }
  }
  const lines = sources.get(file);
  if (!lines) return null;
  const simple = name
    .split(".")
    .pop()!
    .replace(/[^\w$]/g, "");
  if (!simple) return null;
  const patterns = [
    new RegExp(`function\\*?\\s+${simple}\\b`),
    new RegExp(`\\b(const|let|var)\\s+${simple}\\s*[=:]`),
    new RegExp(`^\\s*(async\\s+|static\\s+|private\\s+|public\\s+|get\\s+|\\*\\s*)*${simple}\\s*[(<]`),
    new RegExp(`\\b${simple}\\s*[:=]\\s*(async\\s*)?(\\(|function)`),
  ];
  // A definition with a body first (an interface's method signature ends with ";"), then any match.
  for (const withBody of [true, false]) {
    for (const pattern of patterns) {
      const index = lines.findIndex((line) => pattern.test(line) && (!withBody || /[{>]\s*$/.test(line)));
      if (index >= 0) return index + 1;
    }
  }
  return null;
}
const where = (frame: CallFrame) => {
  if (!frame.url) return "";
  const found = sourceLine(frame.url, frame.functionName);
  if (found !== null) return `${shortUrl(frame.url)}:${found}`;
  // Generated positions are only meaningful when the script was not compiled (node: core, npm JavaScript).
  return /\.tsx?$/.test(frame.url)
    ? `${shortUrl(frame.url)} (col ${frame.columnNumber})`
    : `${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
};

process.stdout.write(
  `profile ${path.basename(file)}: ${ms(total)} ms sampled${Number.isFinite(from) ? " in the window" : ""}, ${ms(idle)} ms idle (${pct(idle, total)} %), ${ms(busy)} ms busy\n\n`,
);
process.stdout.write(`Top ${top} functions by self time (% of busy time, % of all sampled time):\n\n`);
process.stdout.write("| # | self ms | % busy | % all | function | script:line |\n|---|---|---|---|---|---|\n");
const sorted = [...self.values()].filter((entry) => entry.frame.functionName !== "(idle)").sort((a, b) => b.us - a.us);
sorted.slice(0, top).forEach((entry, index) => {
  process.stdout.write(
    `| ${index + 1} | ${ms(entry.us)} | ${pct(entry.us, busy)} | ${pct(entry.us, total)} | ${entry.frame.functionName || "(anonymous)"} | ${where(entry.frame)} |\n`,
  );
});

process.stdout.write("\nSelf time by script / package (% of busy time):\n\n| area | self ms | % busy |\n|---|---|---|\n");
[...areas.entries()]
  .filter(([area]) => area !== "(idle)")
  .sort((a, b) => b[1] - a[1])
  .slice(0, 25)
  .forEach(([area, us]) => {
    process.stdout.write(`| ${area} | ${ms(us)} | ${pct(us, busy)} |\n`);
  });

process.stdout.write(
  "\nSelf time charged to the nearest project function on the stack (what node core, undici, better-sqlite3... did on behalf of which line of lib/; % of busy time):\n\n| function | script:line | ms | % busy |\n|---|---|---|---|\n",
);
[...attributed.entries()]
  .sort((a, b) => b[1].us - a[1].us)
  .slice(0, 25)
  .forEach(([name, entry]) => {
    process.stdout.write(
      `| ${entry.frame ? entry.frame.functionName || "(anonymous)" : name.split("\u0000")[0]} | ${entry.frame ? where(entry.frame) : ""} | ${ms(entry.us)} | ${pct(entry.us, busy)} |\n`,
    );
  });

process.stdout.write(
  "\nInclusive time of the project's own functions (lib/, server.ts; % of busy time):\n\n| function | script:line | total ms | % busy |\n|---|---|---|---|\n",
);
[...inclusive.values()]
  .filter((entry) => {
    const short = shortUrl(entry.frame.url);
    return short.startsWith("lib/") || short === "server.ts";
  })
  .sort((a, b) => b.us - a.us)
  .slice(0, 30)
  .forEach((entry) => {
    process.stdout.write(
      `| ${entry.frame.functionName || "(anonymous)"} | ${where(entry.frame)} | ${ms(entry.us)} | ${pct(entry.us, busy)} |\n`,
    );
  });
