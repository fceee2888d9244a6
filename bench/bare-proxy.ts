// The floor the gateway is measured against (bench/run.ts): a bare Node.js pass-through with the gateway's own
// transport and nothing else. A node:http server reads the request body, sends it to the upstream with undici's
// request() on a keep-alive pool (the settings of lib/providers/http.ts) and writes the answer back. No key, no
// validation, no reservation, no ledger: what any Node.js gateway on this machine pays before doing any work.
//   node bench/bare-proxy.ts <upstream base URL> <port>
import http from "node:http";
import { Agent, request } from "undici";

const upstream = process.argv[2]!;
const port = Number(process.argv[3] ?? 0);
const dispatcher = new Agent({
  keepAliveTimeout: 30_000,
  keepAliveMaxTimeout: 600_000,
  connections: 256,
  headersTimeout: 0,
  bodyTimeout: 0,
});

const server = http.createServer((incoming, outgoing) => {
  const chunks: Buffer[] = [];
  incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
  incoming.on("end", async () => {
    try {
      const answer = await request(`${upstream}${incoming.url}`, {
        method: "POST",
        headers: { "content-type": incoming.headers["content-type"] ?? "application/json" },
        body: Buffer.concat(chunks),
        dispatcher,
      });
      const body = Buffer.from(await answer.body.arrayBuffer());
      outgoing.writeHead(answer.statusCode, { "content-type": String(answer.headers["content-type"] ?? "application/json") });
      outgoing.end(body);
    } catch (error) {
      outgoing.writeHead(502).end(String(error));
    }
  });
});
server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`bare proxy listening ${typeof address === "object" && address ? address.port : 0}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
