// Endpoints for the people and machines that run the gateway: /healthz (process up), /readyz (database and
// Redis reachable), /metrics (Prometheus, behind a bearer token: it shows traffic and revenue per model). They
// answer on raw node:http, ahead of everything else, so a busy portal cannot hide them.
import type { IncomingMessage, ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { moneyStore } from "@/lib/money/store";
import { env } from "@/lib/platform/env";
import { log } from "@/lib/platform/log";
import { renderMetrics, observeBilled } from "@/lib/platform/metrics";
import { onLedgerWritten } from "@/lib/money/ledger";
import { redisConnections, startRedis, stopRedis } from "./redis";

type Operation = (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void>;

function send(outgoing: ServerResponse, status: number, body: unknown): void {
  outgoing.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Null when the request may read the metrics; otherwise the reason, for a 401. */
function metricsRefusal(incoming: IncomingMessage): string | null {
  const { GATEWAY_METRICS_TOKEN: token, GATEWAY_MASTER_KEY: masterKey } = env();
  if (!token && !masterKey)
    return "Metrics are turned off: set GATEWAY_METRICS_TOKEN (or GATEWAY_MASTER_KEY) and send it as 'Authorization: Bearer <token>'";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(incoming.headers.authorization ?? "");
  if (!match) return "Send 'Authorization: Bearer <token>' with GATEWAY_METRICS_TOKEN or GATEWAY_MASTER_KEY to read the metrics";
  const given = match[1]!;
  if ((token && sameSecret(given, token)) || (masterKey && sameSecret(given, masterKey))) return null;
  return "This token cannot read the metrics";
}

const routes: Record<string, Operation> = {
  "/healthz": async (_incoming, outgoing) => send(outgoing, 200, { status: "ok" }),
  "/metrics": async (incoming, outgoing) => {
    const refusal = metricsRefusal(incoming);
    if (refusal) {
      outgoing.writeHead(401, {
        "content-type": "application/json",
        "cache-control": "no-store",
        "www-authenticate": 'Bearer realm="metrics"',
      });
      outgoing.end(JSON.stringify({ error: { code: "unauthenticated", message: refusal } }));
      return;
    }
    const { contentType, body } = await renderMetrics();
    outgoing.writeHead(200, { "content-type": contentType, "cache-control": "no-store" }).end(body);
  },
  "/openapi.json": async (_incoming, outgoing) => {
    const { openApiDocument } = await import("./openapi");
    send(outgoing, 200, openApiDocument(env().appUrl));
  },
  // Fixed words only: the error text names hosts, users and database names, which belong in the log.
  "/readyz": async (_incoming, outgoing) => {
    const checks: Record<string, string> = {};
    try {
      await moneyStore().ping();
      checks.database = "ok";
    } catch (error) {
      checks.database = "unreachable";
      log.warn("readiness: database unreachable", { error: (error as Error).message });
    }
    const redis = redisConnections();
    if (redis) {
      try {
        await redis.commands.ping();
        checks.redis = "ok";
      } catch (error) {
        checks.redis = "unreachable";
        log.warn("readiness: redis unreachable", { error: (error as Error).message });
      }
    }
    const ready = Object.values(checks).every((value) => value === "ok");
    send(outgoing, ready ? 200 : 503, { status: ready ? "ready" : "not ready", checks });
  },
};

export function operationsRoute(pathname: string): Operation | null {
  return routes[pathname] ?? null;
}

export function addOperation(pathname: string, operation: Operation): void {
  routes[pathname] = operation;
}

export async function startOperations(): Promise<void> {
  onLedgerWritten((rows) => rows.forEach(observeBilled));
  await startRedis();
  log.debug("operations ready", { database: env().databaseKind });
}

export async function stopOperations(): Promise<void> {
  await stopRedis();
  await moneyStore()
    .close()
    .catch(() => undefined);
}
