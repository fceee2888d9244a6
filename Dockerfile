# The gateway's image: `docker build -t model-gateway .`, then `docker run -p 3000:3000 -v gateway-data:/data model-gateway`
# (README.md, "Run with Docker"; the choices are explained in docs/architecture.md, "Container image").
# BASE is the Node.js image both stages start from; the official one this file was written for by default.
ARG BASE=node:20-bookworm-slim

# --- build: every dependency, the Prisma clients (postinstall), the portal (next build); then the dev dependencies go.
FROM ${BASE} AS build
WORKDIR /app
# better-sqlite3 falls back to compiling itself when its prebuilt binary cannot be downloaded: that needs a compiler
# and Python, and the Node headers, which Node images carry under /usr/local/include/node (no download).
RUN if ! command -v g++ >/dev/null || ! command -v make >/dev/null || ! command -v python3 >/dev/null; then \
      apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3 make g++ \
      && rm -rf /var/lib/apt/lists/*; \
    fi
ENV npm_config_nodedir=/usr/local NEXT_TELEMETRY_DISABLED=1 npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
# Dependencies first, so that a change of the sources alone reuses this layer.
COPY package.json package-lock.json prisma.config.ts ./
COPY scripts/db-schemas.mjs ./scripts/db-schemas.mjs
COPY prisma ./prisma
RUN npm ci
COPY . .
# The portal build, stamped with the sources' hash the way `npm start` stamps it (scripts/start.mjs), so that the
# container's `npm start` finds it up to date and never builds; then what only building and testing need goes.
RUN node --input-type=module -e "const { ensureBuild } = await import('./scripts/start.mjs'); ensureBuild();" \
 && npm prune --omit=dev \
 && find node_modules -mindepth 1 -maxdepth 2 -type d -empty -delete \
 && rm -rf .next/cache /root/.npm /root/.cache /tmp/*

# --- runtime: Node.js, the pruned dependencies, the sources the server runs (tsx) and the portal build.
FROM ${BASE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    HOST=0.0.0.0 \
    GATEWAY_DATA_DIR=/data \
    GATEWAY_SHUTDOWN_GRACE_MS=8000
# The application files belong to root and cannot be changed by the process; only /data and Next's cache folder
# are its own. The user is the Node image's unprivileged `node` (uid 1000).
COPY --from=build /app /app
RUN mkdir -p /data /app/.next/cache && chown node:node /data /app/.next/cache \
 && node --input-type=module -e "const { sourceHash } = await import('./scripts/source-hash.mjs'); const { readFileSync } = await import('node:fs'); if (readFileSync('.next/gateway-source-hash', 'utf8') !== sourceHash()) { console.error('the portal build does not match the sources'); process.exit(1); }"
USER node
VOLUME ["/data"]
EXPOSE 3000
# /healthz answers while the process is up (lib/server/operations.ts); node's fetch, since the slim image has no curl.
# The timeout is long because starting node takes seconds on a busy machine (5 s was exceeded on a 2-core one).
HEALTHCHECK --interval=15s --timeout=30s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# `npm start` without npm in between: the supervisor (scripts/supervise.mjs) is process 1 and gets SIGTERM itself; it
# passes it on, in-flight streams get GATEWAY_SHUTDOWN_GRACE_MS (8 s: within `docker stop`'s 10 s), then it exits.
STOPSIGNAL SIGTERM
CMD ["node", "scripts/start.mjs"]
