// The production server. /v1/*, /api/user/* and /api/admin/* go straight to plain (Request) => Response handlers
// (docs/decisions/0001-plain-handlers.md: ~8x the throughput of a Next.js route); pages and /api/auth go to Next.js.
import http from "node:http";
import { ConfigError, env } from "@/lib/platform/env";
import { prepareDatabase } from "@/lib/server/startup";
import { dialectFor, isPlainPath, matchRoute, servedRoutes } from "@/lib/server/routes";
import { sendWebResponse, toWebRequest } from "@/lib/platform/http/node-adapter";
import { newRequestId } from "@/lib/platform/http/json";
import { responseHeader, setResponseHeaders } from "@/lib/platform/http/direct-body";
import { clientAddress, isTrustedProxy } from "@/lib/platform/http/client-address";
import { guardConnections } from "@/lib/platform/http/connection-guard";
import { signInBodyRefusal } from "@/lib/platform/http/sign-in-body";
import { errorResponse, GatewayError } from "@/lib/platform/errors";
import { log } from "@/lib/platform/log";
import { startTracing, stopTracing } from "@/lib/platform/tracing";
import { closeLedger } from "@/lib/money/ledger";
import { loadTokenizer } from "@/lib/money/bpe";
import { operationsRoute, startOperations, stopOperations } from "@/lib/server/operations";

async function main(): Promise<void> {
  let config: ReturnType<typeof env>;
  try {
    config = env();
    // Traces, when OTEL_EXPORTER_OTLP_ENDPOINT asks for them (docs/architecture.md, "Traces"); before the first request.
    await startTracing();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\nThe gateway did not start. Fix the variables above and start it again.\n`);
      process.exit(1);
    }
    throw error;
  }

  await prepareDatabase();
  await startOperations();
  // The token table (~0.1-0.3 s to read) is loaded before the first request rather than by it.
  loadTokenizer();
  // The route table is built from the route definitions once, before the first request.
  servedRoutes();

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

  // node:http checks header deadlines every connectionsCheckingInterval (30 s by default): often enough for the
  // configured deadline to mean what it says.
  const connectionsCheckingInterval = Math.max(100, Math.min(30_000, Math.floor(config.GATEWAY_HEADERS_TIMEOUT_MS / 4)));
  const server = http.createServer({ maxHeaderSize: 64 * 1024, connectionsCheckingInterval }, (incoming, outgoing) => {
    // A connection over the caps was answered 503 when it opened; whatever it sent is not handled.
    if (guard.refused(incoming.socket)) return;
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
            response = errorResponse(
              new GatewayError("not_found", `No such endpoint: ${incoming.method} ${pathname}`),
              dialectFor(pathname),
            );
          } else if ("allowed" in match) {
            response = errorResponse(
              new GatewayError("method_not_allowed", `${incoming.method} is not allowed here; use ${match.allowed.join(" or ")}`, {
                headers: { allow: match.allowed.join(", ") },
              }),
              dialectFor(pathname),
            );
          } else {
            response = await match.handler(toWebRequest(incoming, outgoing, requestId), match.params);
          }
        } catch (error) {
          log.error("unhandled error", { requestId, path: pathname, error });
          response = errorResponse(error, dialectFor(pathname));
        }
        let answeredId = responseHeader(response, "x-request-id");
        if (answeredId === null) {
          answeredId = requestId;
          setResponseHeaders(response, { "x-request-id": requestId });
        }
        log.info("request", {
          requestId: answeredId,
          method: incoming.method,
          path: pathname,
          status: response.status,
          ms: Math.round(performance.now() - started),
        });
        await sendWebResponse(response, outgoing);
      })();
      return;
    }
    if (!nextHandler) {
      outgoing.writeHead(404, { "content-type": "text/plain" }).end("The portal is disabled in this process (GATEWAY_DISABLE_NEXT=1).\n");
      return;
    }
    // next-auth reads and parses the whole body before any limit of its own: sign-in forms are a few hundred bytes.
    if (pathname.startsWith("/api/auth/")) {
      const refusal = signInBodyRefusal(incoming.method ?? "GET", incoming.headers);
      if (refusal) {
        outgoing
          .writeHead(refusal.status, { "content-type": "application/json", "cache-control": "no-store", connection: "close" })
          .end(JSON.stringify({ error: { code: refusal.code, message: refusal.message } }));
        return;
      }
    }
    if (config.appUrl.startsWith("https://")) outgoing.setHeader("strict-transport-security", "max-age=31536000; includeSubDomains");
    // The sign-in throttle counts per client address: the socket's, or what trusted proxies forwarded; never a header
    // the client could set.
    incoming.headers["x-gateway-client-address"] = clientAddress(incoming.socket.remoteAddress, incoming.headers["x-forwarded-for"]);
    void nextHandler(incoming, outgoing).catch((error) => {
      log.error("page handler failed", { path: pathname, error });
      if (!outgoing.headersSent) outgoing.writeHead(500, { "content-type": "text/plain" });
      outgoing.end("Internal error\n");
    });
  });
  // Streams and 50 MB uploads may take minutes: node's whole-request timeout would cut them, so bodies are bounded by
  // a minimum rate instead (lib/platform/http/connection-guard.ts). Keep-alive outlasts the 60 s idle timeout of common load
  // balancers, so the balancer, not the gateway, closes idle connections (no race on a reused socket).
  server.requestTimeout = 0;
  server.headersTimeout = config.GATEWAY_HEADERS_TIMEOUT_MS;
  server.keepAliveTimeout = config.GATEWAY_KEEPALIVE_TIMEOUT_MS;
  const guard = guardConnections(server, {
    maxConnections: config.GATEWAY_MAX_CONNECTIONS,
    maxPerAddress: config.GATEWAY_MAX_CONNECTIONS_PER_ADDRESS,
    bodyMinBytesPerSecond: config.GATEWAY_BODY_MIN_BYTES_PER_SECOND,
    bodyGraceMs: config.GATEWAY_BODY_GRACE_MS,
    sendStallMs: config.GATEWAY_SEND_STALL_MS,
    isExempt: isTrustedProxy,
    // Evictions are routine at the cap (one per new connection): debug, so a flood of stuck sockets is no log flood.
    onEvent: (event) => (event.kind === "evicted" ? log.debug : log.warn)("connection limit", event),
  });

  await new Promise<void>((resolve) => server.listen(config.PORT, config.HOST, resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.PORT;
  log.info("gateway listening", {
    url: `http://localhost:${port}`,
    database: config.databaseKind,
    redis: Boolean(config.REDIS_URL),
    portal: Boolean(nextHandler),
  });
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
    guard.stop();
    await closeLedger().catch((error) => log.error("final ledger flush failed", { error }));
    await stopOperations();
    await stopTracing();
    log.info("stopped", { unfinished: inFlight });
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error) => {
  process.stderr.write(`The gateway could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
