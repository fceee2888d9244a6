// `npm test`: checks (and where it can, installs) what the tests need, builds the portal if a test needs it and its
// sources changed, then runs the tests (node's test runner).
//   npm test                           everything: type-check, lint, layering, then unit, integration, clients, e2e
//   npm test -- tests/unit/x.test.ts   only the named files, without the type-check, lint and layering steps
//                                      (tsx runs TypeScript without checking it: `npx tsc --noEmit -p .` does)
// Only tests that serve portal pages wait for a portal build: tests/e2e/ and the files listed in
// scripts/portal-tests.mjs, whose rule is checked against every file run.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import net from "node:net";
import { needsPortal, portalRuleProblems } from "./portal-tests.mjs";
import { ensureBuild } from "./start.mjs";

const CHROMIUM = process.env.GATEWAY_CHROMIUM ?? "/usr/bin/chromium";

function step(message) {
  console.log(`\n== ${message}`);
}

function filesIn(folder) {
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => name.endsWith(".test.ts"))
    .sort()
    .map((name) => path.join(folder, name));
}

function reachable(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port, timeout: 1500 });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

const requested = process.argv.slice(2);
const files = requested.length
  ? requested
  : [
      ...filesIn("tests/unit"),
      ...filesIn("tests/fakes"),
      ...filesIn("tests/integration"),
      ...filesIn("tests/clients"),
      ...filesIn("tests/e2e"),
    ];
const needsBrowser = files.some((file) => file.includes(`tests${path.sep}e2e`) || file.startsWith("tests/e2e"));

step("Checking prerequisites");
const [major] = process.versions.node.split(".").map(Number);
if (major < 20) {
  console.error(`Node.js 20 or newer is needed; this is ${process.version}.`);
  process.exit(1);
}
if (needsBrowser && !existsSync(CHROMIUM)) {
  if (process.getuid?.() === 0) {
    console.log("Chromium is missing; installing Debian's chromium package for the browser tests...");
    const update = spawnSync("apt-get", ["update"], { stdio: "inherit" });
    const install =
      update.status === 0
        ? spawnSync("apt-get", ["install", "-y", "--no-install-recommends", "chromium"], {
            stdio: "inherit",
            env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
          })
        : update;
    if (install.status !== 0 || !existsSync(CHROMIUM)) {
      console.error("Could not install chromium with apt-get. Install it (apt-get install -y chromium) and run npm test again.");
      process.exit(1);
    }
  } else {
    console.error(`Missing: Chromium at ${CHROMIUM} for the browser tests. Install it as root with: apt-get install -y chromium`);
    process.exit(1);
  }
}
if (needsBrowser) console.log(`chromium: ${CHROMIUM}`);
const postgres = await reachable(5432);
const redis = await reachable(6379);
console.log(`PostgreSQL on 127.0.0.1:5432: ${postgres ? "reachable" : "NOT reachable: its tests will be skipped"}`);
console.log(`Redis on 127.0.0.1:6379: ${redis ? "reachable" : "NOT reachable: its tests will be skipped"}`);

step("Building the portal if a test needs it");
const problems = portalRuleProblems(files);
if (problems.length) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
const portalTests = files.filter((file) => needsPortal(file));
if (portalTests.length) {
  console.log(`${portalTests.length} of the ${files.length} test files serve portal pages (scripts/portal-tests.mjs).`);
  ensureBuild();
} else console.log("No test here serves portal pages: the portal build is neither checked nor made.");

if (!requested.length) {
  step("Type-checking (tsc --noEmit)");
  const typecheck = spawnSync("npx", ["tsc", "--noEmit", "-p", "."], { stdio: "inherit" });
  if (typecheck.status !== 0) {
    console.error("Type errors: see above.");
    process.exit(1);
  }
  console.log("no type errors");
  step("Lint and format (biome check)");
  const lint = spawnSync(process.execPath, ["node_modules/@biomejs/biome/bin/biome", "check", "."], { stdio: "inherit" });
  if (lint.status !== 0) {
    console.error("Lint or format problems: see above (`npm run format` rewrites the formatting).");
    process.exit(1);
  }
  step("Checking the layering of lib/ (scripts/check-layers.mjs)");
  const layers = spawnSync(process.execPath, ["scripts/check-layers.mjs"], { stdio: "inherit" });
  if (layers.status !== 0) process.exit(1);
}

step(`Running ${files.length} test file${files.length === 1 ? "" : "s"}`);
// Test artifacts (a TAP copy of this run, screenshots) go here; it is not in git.
mkdirSync("test-results/screenshots", { recursive: true });
// --test-force-exit: a file whose tests are done ends even if a handle (a socket, a timer) is left open, so one
// leaked handle cannot hold the run until CI's time limit.
const result = spawnSync(
  process.execPath,
  [
    "--import",
    "tsx",
    "--test",
    "--test-force-exit",
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    "--test-reporter-destination=test-results/tap.txt",
    ...files,
  ],
  {
    stdio: "inherit",
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: "1",
      GATEWAY_TEST_POSTGRES: postgres ? "1" : "0",
      GATEWAY_TEST_REDIS: redis ? "1" : "0",
    },
  },
);
process.exit(result.status ?? 1);
