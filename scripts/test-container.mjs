// `npm run test:container`: builds the image from the repository's Dockerfile and runs tests/container/container.test.ts
// against it (one container on a volume; the compose stack of two gateways on PostgreSQL and Redis behind nginx).
// Needs Docker and Compose: as root, whatever is missing is installed from Debian's packages (docker.io,
// docker-compose) and dockerd is started (and stopped again at the end); otherwise it says what is missing.
// Base images: the official ones (node:20-bookworm-slim, postgres:16, redis:7, nginx:1.27) when Docker has them;
// where no registry is reachable and they are absent, stand-ins made from Debian's packages (tests/container/standins.mjs).
import { spawn, spawnSync } from "node:child_process";
import { openSync } from "node:fs";
import path from "node:path";
import { ensureStandins, imageExists } from "../tests/container/standins.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");
const IMAGE = process.env.CONTAINER_TEST_IMAGE ?? "model-gateway:test";
const OFFICIAL = { node: "node:20-bookworm-slim", postgres: "postgres:16", redis: "redis:7", nginx: "nginx:1.27" };
const isRoot = process.getuid?.() === 0;
const started = Date.now();

function say(message) {
  process.stdout.write(`[test:container] ${message}\n`);
}
function fail(message) {
  process.stderr.write(`[test:container] ${message}\n`);
  process.exit(1);
}
const works = (command, args) => spawnSync(command, args, { stdio: "ignore", timeout: 30_000 }).status === 0;
const has = (command) => works("sh", ["-c", `command -v ${command}`]);

function aptInstall(packages) {
  say(`installing ${packages.join(", ")} (apt-get)`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  spawnSync("apt-get", ["update", "-q"], { stdio: "inherit", env });
  const result = spawnSync("apt-get", ["install", "-y", "-q", ...packages], { stdio: "inherit", env });
  if (result.status !== 0) fail(`apt-get install ${packages.join(" ")} failed`);
}

// Docker: the client, then a daemon that answers.
if (!has("docker") || !has("dockerd")) {
  if (!isRoot) fail("Docker is missing: install Docker (Debian: apt-get install docker.io) and start it, or run this as root.");
  if (!works("docker", ["info"])) aptInstall(["docker.io"]);
}
let dockerd = null;
if (!works("docker", ["info"])) {
  if (!isRoot) fail("The Docker daemon does not answer (docker info): start it (dockerd), or run this as root.");
  say("starting dockerd (log: /tmp/model-gateway-dockerd.log)");
  const log = openSync("/tmp/model-gateway-dockerd.log", "a");
  dockerd = spawn("dockerd", [], { stdio: ["ignore", log, log], detached: true });
  const deadline = Date.now() + 60_000;
  while (!works("docker", ["info"])) {
    if (Date.now() > deadline || dockerd.exitCode !== null) fail("dockerd did not start within 60 s; see /tmp/model-gateway-dockerd.log");
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
function stopDockerd() {
  if (!dockerd || dockerd.exitCode !== null) return;
  say("stopping the dockerd started here");
  dockerd.kill("SIGTERM");
}
process.on("exit", stopDockerd);

// Compose: the v2 plugin (`docker compose`, what operators run) or Debian's docker-compose.
let compose = works("docker", ["compose", "version"]) ? ["docker", "compose"] : has("docker-compose") ? ["docker-compose"] : null;
if (!compose) {
  if (!isRoot) fail("Docker Compose is missing: install the compose plugin (docker compose) or docker-compose.");
  aptInstall(["docker-compose"]);
  compose = ["docker-compose"];
}
say(`compose: ${compose.join(" ")}`);

// Base images.
const missing = Object.keys(OFFICIAL).filter((name) => !imageExists(OFFICIAL[name]));
const bases = { ...OFFICIAL };
if (missing.length) {
  say(`not in Docker (and no registry is pulled from here): ${missing.map((name) => OFFICIAL[name]).join(", ")}; using stand-ins`);
  const standins = ensureStandins(missing);
  for (const name of missing) bases[name] = standins[name];
}
say(`bases: ${Object.values(bases).join(", ")}`);

// The image, built as an operator builds it (--network host: the build's npm ci reaches the registry as this machine does).
say(`building ${IMAGE} from the Dockerfile`);
const buildStarted = Date.now();
const build = spawnSync(
  "docker",
  ["build", "--network", "host", ...(bases.node === OFFICIAL.node ? [] : ["--build-arg", `BASE=${bases.node}`]), "-t", IMAGE, "."],
  { cwd: ROOT, stdio: "inherit", timeout: 40 * 60_000 },
);
if (build.status !== 0) fail(`docker build failed (${build.error?.message ?? `exit ${build.status}`}); see the output above`);
say(`built in ${Math.round((Date.now() - buildStarted) / 1000)} s`);

const tests = spawnSync(process.execPath, ["--import", "tsx", "--test", "--test-force-exit", "tests/container/container.test.ts"], {
  cwd: ROOT,
  stdio: "inherit",
  timeout: 30 * 60_000,
  env: {
    ...process.env,
    CONTAINER_TEST_IMAGE: IMAGE,
    CONTAINER_TEST_COMPOSE: JSON.stringify(compose),
    POSTGRES_IMAGE: bases.postgres,
    REDIS_IMAGE: bases.redis,
    PROXY_IMAGE: bases.nginx,
  },
});
say(`done in ${Math.round((Date.now() - started) / 1000)} s`);
process.exit(tests.status ?? 1);
