// `npm start`: build the portal if the sources changed since the last build, then run the production server under
// a supervisor that restarts it if it dies (scripts/supervise.mjs). With GATEWAY_DISABLE_NEXT=1 the portal is off,
// so nothing is built.
import { spawnSync } from "node:child_process";
import { SERVER_NODE_FLAGS } from "./server-flags.mjs";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { sourceHash } from "./source-hash.mjs";
import { logLine, supervise } from "./supervise.mjs";

export function ensureBuild({ quiet = false } = {}) {
  const stamp = ".next/gateway-source-hash";
  const hash = sourceHash();
  if (existsSync(".next/BUILD_ID") && existsSync(stamp) && readFileSync(stamp, "utf8") === hash) {
    if (!quiet) console.log("Portal build is up to date.");
    return;
  }
  console.log("Building the portal (next build; takes a minute or two on a small machine)...");
  const started = Date.now();
  const result = spawnSync("npx", ["next", "build"], { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
  if (result.status !== 0) {
    console.error("next build failed; see the output above.");
    process.exit(result.status ?? 1);
  }
  writeFileSync(stamp, hash);
  console.log(`Built in ${Math.round((Date.now() - started) / 1000)} s.`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.env.GATEWAY_DISABLE_NEXT === "1") logLine("info", "the portal is off (GATEWAY_DISABLE_NEXT=1): not building it");
  else ensureBuild();
  const supervisor = supervise(process.execPath, [...SERVER_NODE_FLAGS, "--import", "tsx", "server.ts"], {
    env: { ...process.env, NODE_ENV: "production" },
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => void supervisor.stop(signal));
  process.exit(await supervisor.done);
}
