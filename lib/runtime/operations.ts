// Endpoints for the people and machines that run the gateway: /healthz (process up), /readyz (database and
// Redis reachable). They answer on raw node:http, ahead of everything else, so a busy portal cannot hide them.
import type { IncomingMessage, ServerResponse } from "node:http";
import { moneyStore } from "../billing/store";
import { env } from "../env";
import { log } from "./log";
import { renderMetrics, observeBilled } from "./metrics";
import { onLedgerWritten } from "../billing/ledger";
import { redisConnections, startRedis, stopRedis } from "./redis";

type Operation = (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void>;

function send(outgoing: ServerResponse, status: number, body: unknown): void {
  outgoing.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));
}

const routes: Record<string, Operation> = {
  "/healthz": async (_incoming, outgoing) => send(outgoing, 200, { status: "ok" }),
  "/metrics": async (_incoming, outgoing) => {
    const { contentType, body } = await renderMetrics();
    outgoing.writeHead(200, { "content-type": contentType, "cache-control": "no-store" }).end(body);
  },
  "/openapi.json": async (_incoming, outgoing) => {
    const { openApiDocument } = await import("./openapi");
    send(outgoing, 200, openApiDocument(env().appUrl));
  },
  "/readyz": async (_incoming, outgoing) => {
    const checks: Record<string, string> = {};
    try {
      await moneyStore().ping();
      checks.database = "ok";
    } catch (error) {
      checks.database = `unreachable: ${(error as Error).message}`;
    }
    const redis = redisConnections();
    if (redis) {
      try {
        await redis.commands.ping();
        checks.redis = "ok";
      } catch (error) {
        checks.redis = `unreachable: ${(error as Error).message}`;
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
  await moneyStore().close().catch(() => undefined);
}
