// The production server. /v1/*, /api/user/* and /api/admin/* go straight to plain (Request) => Response handlers
// (architecture decision 1: ~8x the throughput of a Next.js route); pages and /api/auth go to Next.js.
import http from "node:http";
import { ConfigError, env } from "./lib/env";
import { prepareDatabase } from "./lib/runtime/startup";
import { isPlainPath, matchRoute } from "./lib/http/routes";
import { sendWebResponse, toWebRequest } from "./lib/http/node-adapter";
import { newRequestId } from "./lib/http/json";
import { errorResponse, GatewayError, type Dialect } from "./lib/errors";
import { log } from "./lib/runtime/log";
import { flushLedger } from "./lib/billing/ledger";
import { operationsRoute, startOperations, stopOperations } from "./lib/runtime/operations";

function dialectFor(pathname: string): Dialect {
  if (pathname.startsWith("/v1/messages")) return "anthropic";
  if (pathname.startsWith("/v1")) return "openai";
  return "plain";
}

async function main(): Promise<void> {
  let config: ReturnType<typeof env>;
  try {
    config = env();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nThe gateway did not start. Fix the variables above and start it again.\n`);
      process.exit(1);
    }
    throw error;
  }

  await prepareDatabase();
  await startOperations();

  let nextHandler: ((request: http.IncomingMessage, response: http.ServerResponse) => Promise<void>) | null = null;
  if (config.GATEWAY_DISABLE_NEXT !== "1") {
    process.env.NEXT_TELEMETRY_DISABLED = "1";
    // next-auth builds its redirects from NEXTAUTH_URL; the public base URL is APP_URL.
    if (config.APP_URL && !process.env.NEXTAUTH_URL) process.env.NEXTAUTH_URL = config.appUrl;
    const { default: next } = await import("next");
    const app = next({ dev: false, dir: process.cwd(), hostname: "localhost", port: config.PORT });
    await app.prepare();
    const handle = app.getRequestHandler();
    nextHandler = (request, response) => handle(request, response);
  }

  let inFlight = 0;
  let closing = false;

  const server = http.createServer({ maxHeaderSize: 64 * 1024 }, (incoming, outgoing) => {
    const url = incoming.url ?? "/";
    const pathname = url.split("?", 1)[0]!;
    const operations = operationsRoute(pathname);
    if (operations) {
      void operations(incoming, outgoing);
      return;
    }
    if (isPlainPath(pathname)) {
      inFlight++;
      outgoing.once("close", () => inFlight--);
      const requestId = newRequestId();
      const started = performance.now();
      void (async () => {
        let response: Response;
        try {
          const match = matchRoute(incoming.method ?? "GET", pathname);
          if (!match) {
            response = errorResponse(new GatewayError("not_found", `No such endpoint: ${incoming.method} ${pathname}`), dialectFor(pathname));
          } else if ("allowed" in match) {
            response = errorResponse(
              new GatewayError("method_not_allowed", `${incoming.method} is not allowed here; use ${match.allowed.join(" or ")}`, { headers: { allow: match.allowed.join(", ") } }),
              dialectFor(pathname),
            );
          } else {
            response = await match.handler(toWebRequest(incoming, outgoing, requestId), match.params);
          }
        } catch (error) {
          log.error("unhandled error", { requestId, path: pathname, error });
          response = errorResponse(error, dialectFor(pathname));
        }
        if (!response.headers.has("x-request-id")) response.headers.set("x-request-id", requestId);
        log.info("request", { requestId: response.headers.get("x-request-id"), method: incoming.method, path: pathname, status: response.status, ms: Math.round(performance.now() - started) });
        await sendWebResponse(response, outgoing);
      })();
      return;
    }
    if (!nextHandler) {
      outgoing.writeHead(404, { "content-type": "text/plain" }).end("The portal is disabled in this process (GATEWAY_DISABLE_NEXT=1).\n");
      return;
    }
    // The sign-in throttle counts per client address: what the socket says, never a header the client could set.
    incoming.headers["x-gateway-client-address"] = incoming.socket.remoteAddress ?? "";
    void nextHandler(incoming, outgoing).catch((error) => {
      log.error("page handler failed", { path: pathname, error });
      if (!outgoing.headersSent) outgoing.writeHead(500, { "content-type": "text/plain" });
      outgoing.end("Internal error\n");
    });
  });
  // Streams and 50 MB uploads may take minutes; the per-request timeouts of node:http would cut them.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 65_000;

  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  log.info("gateway listening", { url: `http://localhost:${port}`, database: config.databaseKind, redis: Boolean(config.REDIS_URL), portal: Boolean(nextHandler) });
  process.stdout.write(`Gateway ready on http://localhost:${port}\n`);

  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info("shutting down", { signal, inFlight });
    server.close();
    // In-flight streams may finish up to the deadline; idle keep-alive connections are closed at once.
    server.closeIdleConnections();
    const deadline = Date.now() + config.GATEWAY_SHUTDOWN_GRACE_MS;
    while (inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    server.closeAllConnections();
    await flushLedger().catch((error) => log.error("final ledger flush failed", { error }));
    await stopOperations();
    log.info("stopped", { unfinished: inFlight });
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error) => {
  process.stderr.write(`The gateway could not start: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
