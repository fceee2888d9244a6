// Stand-in base images for `npm run test:container` on machines that reach no image registry: a Debian root file
// system made with debootstrap from the machine's own apt sources, then Node.js (this process's own binary, npm and
// headers), PostgreSQL, Redis and nginx from Debian's packages. They are tagged model-gateway-standin/*, never with
// the official names, so that a machine that has the official images keeps them (and the test uses those instead:
// tests/container/run.mjs). Each image is built once and kept; delete it (`docker rmi`) to rebuild it.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export const STANDIN = {
  debian: "model-gateway-standin/debian:bookworm",
  node: `model-gateway-standin/node:${process.versions.node.split(".")[0]}`,
  postgres: "model-gateway-standin/postgres:15",
  redis: "model-gateway-standin/redis:7",
  nginx: "model-gateway-standin/nginx:1",
};

function say(message) {
  process.stdout.write(`[standins] ${message}\n`);
}

export function imageExists(tag) {
  return spawnSync("docker", ["image", "inspect", tag], { stdio: "ignore" }).status === 0;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: "inherit", timeout: 20 * 60_000, ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.error?.message ?? `exit ${result.status}`})`);
}

/** The Debian mirror and suite this machine's apt uses (deb822 .sources files or sources.list), read at run time. */
export function aptSources() {
  const entries = [];
  const dir = "/etc/apt/sources.list.d";
  const files = existsSync(dir) ? readdirSync(dir).map((name) => path.join(dir, name)) : [];
  for (const file of files.filter((f) => f.endsWith(".sources"))) {
    for (const stanza of readFileSync(file, "utf8").split(/\n\s*\n/)) {
      const field = (name) => stanza.match(new RegExp(`^${name}:\\s*(.+)$`, "mi"))?.[1].trim();
      if (field("Enabled") === "no" || !(field("Types") ?? "").split(/\s+/).includes("deb")) continue;
      for (const uri of (field("URIs") ?? "").split(/\s+/).filter(Boolean))
        entries.push({ uri, suites: (field("Suites") ?? "").split(/\s+/), components: field("Components") ?? "main" });
    }
  }
  for (const file of ["/etc/apt/sources.list", ...files.filter((f) => f.endsWith(".list"))]) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      const match = line.trim().match(/^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+(.+)$/);
      if (match) entries.push({ uri: match[1], suites: [match[2]], components: match[3] });
    }
  }
  return entries;
}

function buildDebian() {
  const codename = readFileSync("/etc/os-release", "utf8").match(/^VERSION_CODENAME=(\S+)/m)?.[1] ?? "bookworm";
  const sources = aptSources();
  const main = sources.find((s) => s.suites.includes(codename));
  if (!main) throw new Error(`no apt source for ${codename} in /etc/apt/sources.list*: cannot make a Debian root file system`);
  if (spawnSync("sh", ["-c", "command -v debootstrap"], { stdio: "ignore" }).status !== 0) {
    say("installing debootstrap (apt-get)");
    run("apt-get", ["install", "-y", "-q", "debootstrap"], { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  }
  const work = mkdtempSync(path.join(os.tmpdir(), "standin-rootfs-"));
  const root = path.join(work, "root");
  try {
    say(`debootstrap ${codename} (minbase) from the machine's apt source; a few minutes`);
    run("debootstrap", ["--variant=minbase", codename, root, main.uri]);
    // The image's apt uses the same sources as the machine (every suite, so security updates too).
    const lines = sources.flatMap((s) => s.suites.map((suite) => `deb ${s.uri} ${suite} ${s.components}`));
    writeFileSync(path.join(root, "etc/apt/sources.list"), `${[...new Set(lines)].join("\n")}\n`);
    rmSync(path.join(root, "var/cache/apt/archives"), { recursive: true, force: true });
    mkdirSync(path.join(root, "var/cache/apt/archives/partial"), { recursive: true });
    say(`importing ${STANDIN.debian}`);
    execFileSync("sh", ["-c", `tar -C '${root}' -c . | docker import - '${STANDIN.debian}'`], { stdio: "inherit" });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function dockerBuild(tag, dockerfile, files = {}) {
  const context = mkdtempSync(path.join(os.tmpdir(), "standin-context-"));
  try {
    writeFileSync(path.join(context, "Dockerfile"), dockerfile);
    for (const [name, source] of Object.entries(files)) {
      if (typeof source === "string") cpSync(source, path.join(context, name), { recursive: true, dereference: true });
      else writeFileSync(path.join(context, name), source.text, { mode: source.mode ?? 0o644 });
    }
    say(`building ${tag}`);
    run("docker", ["build", "--network", "host", "-t", tag, context]);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

const APT = "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends";

function buildNode() {
  // This process's own Node.js: the binary, npm beside it, and the headers node-gyp needs to build native modules
  // without downloading them. The machine's CA bundle goes in too, so that npm trusts what the machine trusts.
  const node = realpathSync(process.execPath);
  const prefix = path.dirname(path.dirname(node));
  const npm = [path.join(prefix, "lib/node_modules/npm"), "/usr/lib/node_modules/npm", "/usr/local/lib/node_modules/npm"].find((dir) =>
    existsSync(path.join(dir, "package.json")),
  );
  const headers = [path.join(prefix, "include/node"), "/usr/include/node", "/usr/local/include/node"].find((dir) =>
    existsSync(path.join(dir, "node_version.h")),
  );
  if (!npm || !headers)
    throw new Error(`the stand-in Node image needs npm and the Node headers beside ${node}; found npm ${npm}, headers ${headers}`);
  const ca =
    process.env.NODE_EXTRA_CA_CERTS && existsSync(process.env.NODE_EXTRA_CA_CERTS)
      ? process.env.NODE_EXTRA_CA_CERTS
      : "/etc/ssl/certs/ca-certificates.crt";
  dockerBuild(
    STANDIN.node,
    `FROM ${STANDIN.debian}
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY include /usr/local/include/node
COPY ca.crt /usr/local/share/standin-ca.crt
RUN rm -f /usr/local/lib/node_modules/npm/npmrc \\
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
 && node --version && npm --version
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/standin-ca.crt NODE_VERSION=${process.versions.node}
CMD ["node"]
`,
    { node, npm, include: headers, "ca.crt": ca },
  );
}

// What the official postgres image's entrypoint does that the compose file relies on: a first start initialises
// PGDATA with POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB and listens on every address with password auth.
const POSTGRES_ENTRYPOINT = `#!/bin/sh
set -eu
BIN=$(ls -d /usr/lib/postgresql/*/bin | tail -n 1)
export PGDATA="\${PGDATA:-/var/lib/postgresql/data}"
USER_NAME="\${POSTGRES_USER:-postgres}"
DB_NAME="\${POSTGRES_DB:-$USER_NAME}"
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql && chown -R postgres:postgres "$PGDATA" /var/run/postgresql && chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "\${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
  printf '%s' "$POSTGRES_PASSWORD" > /tmp/pwfile
  "$BIN/initdb" --username="$USER_NAME" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /tmp/pwfile
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  "$BIN/pg_ctl" -w -o "-c listen_addresses=''" start >/dev/null
  if [ "$DB_NAME" != postgres ]; then "$BIN/psql" -v ON_ERROR_STOP=1 -U "$USER_NAME" -d postgres -c "CREATE DATABASE \\"$DB_NAME\\"" >/dev/null; fi
  "$BIN/pg_ctl" -w -m fast stop >/dev/null
  echo "PostgreSQL init process complete; ready for start up."
fi
exec "$BIN/postgres" -c listen_addresses='*' "$@"
`;

function buildPostgres() {
  dockerBuild(
    STANDIN.postgres,
    `FROM ${STANDIN.debian}
RUN ${APT} postgresql-15 && rm -rf /var/lib/apt/lists/*
COPY entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
`,
    { "entrypoint.sh": { text: POSTGRES_ENTRYPOINT, mode: 0o755 } },
  );
}

function buildRedis() {
  dockerBuild(
    STANDIN.redis,
    `FROM ${STANDIN.debian}
RUN ${APT} redis-server && rm -rf /var/lib/apt/lists/* && mkdir -p /data && chown redis:redis /data
WORKDIR /data
USER redis
CMD ["redis-server", "--protected-mode", "no"]
`,
  );
}

function buildNginx() {
  dockerBuild(
    STANDIN.nginx,
    `FROM ${STANDIN.debian}
RUN ${APT} nginx && rm -rf /var/lib/apt/lists/* && ln -sf /dev/stdout /var/log/nginx/access.log && ln -sf /dev/stderr /var/log/nginx/error.log
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
`,
  );
}

/** Builds whichever stand-ins are missing; returns their tags. */
export function ensureStandins(which = ["node", "postgres", "redis", "nginx"]) {
  if (!imageExists(STANDIN.debian)) buildDebian();
  const builders = { node: buildNode, postgres: buildPostgres, redis: buildRedis, nginx: buildNginx };
  for (const name of which) if (!imageExists(STANDIN[name])) builders[name]();
  return STANDIN;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  ensureStandins(process.argv.slice(2).length ? process.argv.slice(2) : undefined);
  say("done");
}
