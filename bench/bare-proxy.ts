// The floor the gateway is measured against (bench/run.ts): a bare Node.js pass-through with the gateway's own
// transport and nothing else. A node:http server sends the request to the upstream with undici's request() on a
// keep-alive pool (the settings of lib/providers/http.ts) and writes the answer back. No key, no validation, no
// reservation, no ledger: what any Node.js gateway on this machine pays before doing any work.
// Small bodies (a chat request and its answer) are read whole, as the gateway reads them; large ones (uploads,
// images) and streams are passed on chunk by chunk as they arrive, as a pass-through at wire speed would.
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

/** Bodies up to this size are read whole before they are passed on. */
const WHOLE_BYTES = 64 * 1024;

async function readWhole(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const server = http.createServer(async (incoming, outgoing) => {
  try {
    const declared = Number(incoming.headers["content-length"] ?? "-1");
    const streamed = declared > WHOLE_BYTES;
    const headers: Record<string, string> = { "content-type": incoming.headers["content-type"] ?? "application/json" };
    if (streamed) headers["content-length"] = String(declared);
    const answer = await request(`${upstream}${incoming.url}`, {
      method: "POST",
      headers,
      body: streamed ? incoming : await readWhole(incoming),
      dispatcher,
    });
    const contentType = String(answer.headers["content-type"] ?? "application/json");
    const length = Number(answer.headers["content-length"] ?? "-1");
    if (contentType.startsWith("text/event-stream") || length < 0 || length > WHOLE_BYTES) {
      outgoing.writeHead(answer.statusCode, { "content-type": contentType, "cache-control": "no-cache" });
      for await (const chunk of answer.body) if (!outgoing.write(chunk)) await new Promise((resolve) => outgoing.once("drain", resolve));
      outgoing.end();
      return;
    }
    const body = Buffer.from(await answer.body.arrayBuffer());
    outgoing.writeHead(answer.statusCode, { "content-type": contentType });
    outgoing.end(body);
  } catch (error) {
    if (outgoing.headersSent) outgoing.destroy();
    else outgoing.writeHead(502).end(String(error));
  }
});
server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`bare proxy listening ${typeof address === "object" && address ? address.port : 0}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
