// A hash of everything the Next.js build reads, to know when `npm start` / `npm test` must rebuild.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import path from "node:path";

const ROOTS = ["app", "lib", "components", "public", "next.config.js", "proxy.ts", "package-lock.json", "tsconfig.json"];
const SKIP = new Set(["node_modules", ".next", "generated"]);

function walk(entry, files) {
  if (!existsSync(entry)) return;
  const stat = statSync(entry);
  if (stat.isDirectory()) {
    for (const name of readdirSync(entry).sort()) if (!SKIP.has(name)) walk(path.join(entry, name), files);
  } else files.push(entry);
}

export function sourceHash() {
  const files = [];
  for (const root of ROOTS) walk(root, files);
  const hash = createHash("sha256");
  for (const file of files) hash.update(file).update("\0").update(readFileSync(file)).update("\0");
  return hash.digest("hex");
}
