// The container image and the compose stack, as an operator runs them (README.md, "Run with Docker"). Run by
// `npm run test:container` (scripts/test-container.mjs), which builds the image first and passes its name and the
// base images in CONTAINER_TEST_* variables. Every container, volume and network made here is removed afterwards.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { signIn } from "../helpers/session";

const IMAGE = process.env.CONTAINER_TEST_IMAGE;
const COMPOSE = JSON.parse(process.env.CONTAINER_TEST_COMPOSE ?? "null") as string[] | null;
const skip = !IMAGE || !COMPOSE ? "run through `npm run test:container`, which builds the image" : false;
const REPOSITORY = path.resolve(import.meta.dirname, "../..");

/** Runs a command; rejects with its output when it fails or outlasts `timeoutMs`. */
function run(command: string, args: string[], options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { timeout: options.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024, env: options.env ?? process.env, cwd: REPOSITORY },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${command} ${args.join(" ")}: ${error.message}\n${stdout}\n${stderr}`));
        else resolve(`${stdout}${stderr}`);
      },
    );
  });
}
const docker = (...args: string[]) => run("docker", args);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? ` (last: ${String(last)})` : ""}`);
}

const healthy = (url: string) =>
  waitFor(`${url}/healthz`, 180_000, async () => {
    // A timer of our own: AbortSignal.timeout's does not keep the process alive while the connection waits.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 3_000);
    try {
      return (await fetch(`${url}/healthz`, { signal: controller.signal })).ok ? true : undefined;
    } finally {
      clearTimeout(timer);
    }
  });

/** The operator API, with a bearer token or a signed-in admin's cookie (same-origin, as the portal sends it). */
function operator(url: string, auth: { bearer: string } | { cookie: string }) {
  return async <T = any>(method: string, pathname: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if ("bearer" in auth) headers.authorization = `Bearer ${auth.bearer}`;
    else Object.assign(headers, { cookie: auth.cookie, origin: url, "sec-fetch-site": "same-origin" });
    const response = await fetch(`${url}${pathname}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
}
type Operator = ReturnType<typeof operator>;

async function newKey(admin: Operator, quota = 10_000_000): Promise<{ userId: string; key: string }> {
  const email = `user-${randomBytes(5).toString("hex")}@example.com`;
  const user = await admin("POST", "/api/admin/users", { email, password: "user-password-123", quota: 1_000_000_000 });
  const key = await admin("POST", "/api/admin/keys", { userId: user.id, name: "container test", group: "default", quota });
  return { userId: user.id, key: key.key };
}

function chat(url: string, key: string, extra: Record<string, unknown> = {}) {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "std-5.5", max_tokens: 200, messages: [{ role: "user", content: "Hello from a container" }], ...extra }),
  });
}

/** A simulator channel ahead of the built-in one whose answers start after `firstByteDelayMs` (docs/simulator.md). */
const slowChannel = (admin: Operator, firstByteDelayMs: number) =>
  admin("POST", "/api/admin/channels", {
    name: `slow simulator ${firstByteDelayMs} ms`,
    type: "simulator",
    models: ["std-5.5"],
    settings: { firstByteDelayMs },
    priority: 100,
  });

const FIRST_ADMIN = /First admin account created:\s+email:\s+(\S+)\s+password:\s+(\S+)/;

describe("the image, run with only a volume", { skip }, () => {
  const name = `mgw-test-${randomBytes(4).toString("hex")}`;
  const volume = `${name}-data`;
  let url = "";
  let admin: Operator;
  let adminCookie = "";
  let key = "";

  const start = async () => {
    await docker("run", "-d", "--name", name, "-p", "127.0.0.1::3000", "-v", `${volume}:/data`, IMAGE!);
    const published = (await docker("port", name, "3000/tcp")).trim().split("\n")[0]!;
    url = `http://127.0.0.1:${published.slice(published.lastIndexOf(":") + 1)}`;
    await healthy(url);
  };

  before(async () => {
    await docker("volume", "create", volume);
    await start();
  });
  after(async () => {
    if (process.env.CONTAINER_TEST_KEEP !== "1") {
      await docker("rm", "-f", name).catch(() => undefined);
      await docker("volume", "rm", "-f", volume).catch(() => undefined);
    }
  });

  test("the image holds no dev dependencies, tests or .env, and runs as an unprivileged user", async (t) => {
    const size = Number((await docker("image", "inspect", "-f", "{{.Size}}", IMAGE!)).trim());
    t.diagnostic(`image size: ${Math.round(size / 1e6)} MB`);
    const check = await docker(
      "run",
      "--rm",
      "--entrypoint",
      "sh",
      IMAGE!,
      "-c",
      // A folder that npm prune emptied is no dependency; .next/cache is made empty, for Next's run-time cache.
      'id -u; for p in tests .env .git node_modules/@biomejs/biome node_modules/playwright node_modules/fast-check node_modules/@types/node; do [ -e "/app/$p" ] && echo "present: $p"; done; [ -n "$(ls -A /app/.next/cache)" ] && echo "present: the build cache"; [ -f /app/.next/BUILD_ID ] && echo built; [ -d /app/lib/generated/sqlite ] && echo clients; true',
    );
    const lines = check.trim().split("\n");
    assert.notEqual(lines[0], "0", "not root");
    assert.deepEqual(
      lines.filter((line) => line.startsWith("present:")),
      [],
    );
    assert.ok(lines.includes("built"), "the portal build is in the image");
    assert.ok(lines.includes("clients"), "the Prisma clients are in the image");
    assert.equal((await docker("exec", name, "id", "-un")).trim(), "node");
  });

  test("/healthz answers, Docker's healthcheck reports healthy, and the first admin is printed", async () => {
    assert.deepEqual(await (await fetch(`${url}/healthz`)).json(), { status: "ok" });
    await waitFor("the healthcheck", 120_000, async () =>
      (await docker("inspect", "-f", "{{.State.Health.Status}}", name)).trim() === "healthy" ? true : undefined,
    );
    const found = (await docker("logs", name)).match(FIRST_ADMIN);
    assert.ok(found, "the first admin's email and password are in the log");
    assert.equal(found[1], "admin@localhost");
    const signedIn = await signIn(url, found[1]!, found[2]!);
    assert.ok(signedIn.ok, `the printed admin signs in: ${JSON.stringify(signedIn)}`);
    adminCookie = signedIn.cookie;
    admin = operator(url, { cookie: adminCookie });
  });

  test("a key made through the operator API gets a simulated chat answer and an image", async () => {
    key = (await newKey(admin)).key;
    const answer = await chat(url, key);
    assert.equal(answer.status, 200);
    const body = await answer.json();
    assert.match(body.choices[0].message.content, /^\(simulated\) /);
    assert.equal(body.system_fingerprint, "simulator");
    const image = await fetch(`${url}/v1/images/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "std-image-2", prompt: "a lighthouse", size: "1024x1024", quality: "low" }),
    });
    assert.equal(image.status, 200);
    const png = Buffer.from((await image.json()).data[0].b64_json, "base64");
    assert.deepEqual([...png.subarray(1, 4)], [...Buffer.from("PNG")], "a PNG image");
  });

  test("docker stop: an in-flight stream finishes, then the container exits 0 within docker stop's 10 s", async () => {
    await slowChannel(admin, 3_000);
    const stream = chat(url, key, { stream: true }).then(async (response) => ({ status: response.status, text: await response.text() }));
    await new Promise((resolve) => setTimeout(resolve, 800));
    const started = Date.now();
    await docker("stop", name);
    const took = Date.now() - started;
    const { status, text } = await stream;
    assert.equal(status, 200);
    assert.match(text, /data: \[DONE\]/, "the stream reached its end");
    assert.ok(took < 10_000, `stopped in ${took} ms`);
    assert.equal((await docker("inspect", "-f", "{{.State.ExitCode}}", name)).trim(), "0", "exited by itself, not killed");
    assert.match(await docker("logs", name), /"msg":"stopped","unfinished":0/);
  });

  test("a new container on the same volume has the data: the key works, the session (signed with the stored secret) too, no new admin", async () => {
    await docker("rm", name);
    await start();
    const answer = await chat(url, key);
    assert.equal(answer.status, 200);
    assert.match((await answer.json()).choices[0].message.content, /^\(simulated\) /);
    // The cookie signed before the restart, sent to the new container (a new published port).
    const users = await operator(url, { cookie: adminCookie })("GET", "/api/admin/users?limit=100");
    assert.ok(users.data.length >= 2, "the admin and the user made before");
    assert.doesNotMatch(await docker("logs", name), FIRST_ADMIN);
  });
});

describe("compose: two gateways on PostgreSQL and Redis behind nginx", { skip }, () => {
  const project = `mgwtest${randomBytes(4).toString("hex")}`;
  const folder = mkdtempSync(path.join(os.tmpdir(), "mgw-compose-"));
  const envFile = path.join(folder, "env");
  const masterKey = randomBytes(24).toString("hex");
  let env: NodeJS.ProcessEnv = { ...process.env };
  let proxyUrl = "";
  const compose = (args: string[], timeoutMs = 300_000) =>
    run(COMPOSE![0]!, [...COMPOSE!.slice(1), "-p", project, "-f", "compose.yaml", "--env-file", envFile, "--profile", "scale", ...args], {
      env,
      timeoutMs,
    });
  const logsOf = async (service: string) => docker("logs", (await compose(["ps", "-q", service])).trim());

  before(async () => {
    // The .env that README.md, "Run with Docker" tells the operator to write.
    writeFileSync(
      envFile,
      [
        `GATEWAY_SECRET=${randomBytes(32).toString("hex")}`,
        `POSTGRES_PASSWORD=${randomBytes(16).toString("hex")}`,
        `REDIS_PASSWORD=${randomBytes(16).toString("hex")}`,
        `GATEWAY_MASTER_KEY=${masterKey}`,
        "",
      ].join("\n"),
    );
    const proxyPort = await freePort();
    env = {
      ...process.env,
      GATEWAY_ENV_FILE: envFile,
      GATEWAY_IMAGE: IMAGE,
      GATEWAY_PUBLISH: `127.0.0.1:${await freePort()}`,
      PROXY_PUBLISH: `127.0.0.1:${proxyPort}`,
    };
    proxyUrl = `http://127.0.0.1:${proxyPort}`;
    await compose(["up", "-d", "--no-build"], 600_000);
    await healthy(proxyUrl);
  });
  after(async () => {
    if (process.env.CONTAINER_TEST_KEEP !== "1") await compose(["down", "-v", "--remove-orphans", "-t", "15"]).catch(() => undefined);
    rmSync(folder, { recursive: true, force: true });
  });

  test("the first admin is printed by exactly one of the two gateways", async () => {
    const printed = [await logsOf("gateway"), await logsOf("gateway-2")].filter((log) => FIRST_ADMIN.test(log));
    assert.equal(printed.length, 1);
  });

  test("40 parallel requests through the proxy on a key whose quota covers 5: exactly 5 served, by both gateways together", async () => {
    const admin = operator(proxyUrl, { bearer: masterKey });
    // Answers start after 4 s, so that every request has reserved or been refused before the first one settles.
    await slowChannel(admin, 4_000);
    const probe = await newKey(admin);
    // The channel made through one instance reached both (Redis invalidation): two requests, one to each, both slow.
    let reserved = 0;
    for (let index = 0; index < 2; index++) {
      const started = Date.now();
      const response = await chat(proxyUrl, probe.key);
      assert.equal(response.status, 200);
      await response.text();
      if (Date.now() - started < 4_000) {
        // A gateway that still had the old channel list answered at once: wait out its cache and try once more.
        await new Promise((resolve) => setTimeout(resolve, 31_000));
        index--;
        continue;
      }
      const requestId = response.headers.get("x-request-id");
      reserved = await waitFor(
        "the probe's ledger row",
        10_000,
        async () => (await admin("GET", `/api/admin/usage?requestId=${requestId}`)).data[0]?.reserved,
      );
    }
    assert.ok(reserved > 0);

    const racer = await newKey(admin, Math.floor(reserved * 5.5));
    const before = { first: await logsOf("gateway"), second: await logsOf("gateway-2") };
    const statuses = await Promise.all(
      Array.from({ length: 40 }, async (_, index) => {
        const response = await chat(proxyUrl, racer.key, { messages: [{ role: "user", content: `racer ${index}` }] });
        await response.text();
        return response.status;
      }),
    );
    assert.equal(statuses.filter((status) => status === 200).length, 5, `statuses: ${statuses.join(" ")}`);
    assert.equal(statuses.filter((status) => status === 403).length, 35);
    const chatLines = (log: string) => log.split("\n").filter((line) => line.includes('"path":"/v1/chat/completions"')).length;
    const first = chatLines(await logsOf("gateway")) - chatLines(before.first);
    const second = chatLines(await logsOf("gateway-2")) - chatLines(before.second);
    assert.equal(first + second, 40);
    assert.ok(first > 0 && second > 0, `both gateways took part: ${first} and ${second}`);
  });
});
