// The registry these machines reach serves no macOS or Windows builds of Next.js's compiler (@next/swc-darwin-*,
// -win32-*): npm then leaves them out of package-lock.json, and `npm ci` refuses that very lock ("Missing: ... from
// lock file"). This adds lock entries for the missing platform packages, marked optional and restricted to their
// os/cpu, so `npm ci` accepts the lock and skips them on Linux without fetching them.
// Run after any `npm install` that rewrote the lock:  node scripts/fix-lock.mjs
import { readFileSync, writeFileSync } from "node:fs";

const PLATFORMS = {
  "darwin-arm64": { os: ["darwin"], cpu: ["arm64"] },
  "darwin-x64": { os: ["darwin"], cpu: ["x64"] },
  "win32-arm64-msvc": { os: ["win32"], cpu: ["arm64"] },
  "win32-x64-msvc": { os: ["win32"], cpu: ["x64"] },
  "linux-arm64-gnu": { os: ["linux"], cpu: ["arm64"], libc: ["glibc"] },
  "linux-arm64-musl": { os: ["linux"], cpu: ["arm64"], libc: ["musl"] },
  "linux-x64-gnu": { os: ["linux"], cpu: ["x64"], libc: ["glibc"] },
  "linux-x64-musl": { os: ["linux"], cpu: ["x64"], libc: ["musl"] },
};

const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
const added = [];
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const match = /^@next\/swc-(.+)$/.exec(name);
    if (!match || !PLATFORMS[match[1]]) continue;
    const target = `${path ? `${path}/` : ""}node_modules/${name}`.replace(/^\//, "");
    const hoisted = `node_modules/${name}`;
    if (lock.packages[target] || lock.packages[hoisted]) continue;
    // Keys in the order npm itself writes them, so that a later `npm install` leaves the file as it is.
    const { os, cpu, libc } = PLATFORMS[match[1]];
    lock.packages[hoisted] = { version, cpu, optional: true, os, ...(libc ? { libc } : {}), engines: { node: ">= 10" } };
    added.push(`${name}@${version}`);
  }
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))));
lock.packages = sorted;
writeFileSync("package-lock.json", `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added lock entries: ${added.join(", ")}` : "package-lock.json needs no platform entries");
