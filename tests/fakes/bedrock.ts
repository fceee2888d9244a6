// A fake AWS Bedrock runtime (https://bedrock-runtime.{region}.amazonaws.com) that records what it receives and
// checks it as Bedrock does: SigV4 or a Bedrock API key (tests/fakes/bedrock-auth.ts), the Invoke body's closed
// Anthropic schema, the model id in the path raw or percent-encoded. It answers with the documented shapes
// (tests/fakes/bedrock-wire.ts), streams as event-stream frames, and can be scripted to call a tool, fail with
// Bedrock's errors, throttle, cut a stream, raise an exception frame mid-stream, or leave usage out.
//
// `url` serves HTTP/2 over TLS with HTTP/1.1 fallback, as the AWS SDK talks HTTP/2 by default (trust `ca`, e.g.
// `requestHandler: { nodeHttp2ConnectOptions: { ca } }`); `httpUrl` serves plain HTTP/1.1 for fetch-based callers.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AuthResult, type BedrockCredentials, verifyBedrockAuth } from "./bedrock-auth.ts";
import {
  type BedrockErrorType,
  type BedrockStreamExceptionType,
  type BedrockToolCall,
  type BedrockUsage,
  chunkFrame,
  converseBody,
  converseEvents,
  converseFrame,
  defaultUsage,
  errorMessage,
  errorStatus,
  exceptionFrame,
  messagesBody,
  messagesEvents,
} from "./bedrock-wire.ts";
import { validateConverseBody, validateInvokeBody } from "./bedrock-validate.ts";

export type BedrockOperation = "invoke" | "invoke-with-response-stream" | "converse" | "converse-stream" | "count-tokens";

export type BedrockReceived = {
  protocol: "h2" | "http/1.1";
  method: string;
  /** The path as it arrived, query included, percent-encoding untouched. */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or null when it was not JSON. */
  body: any;
  raw: Buffer;
  operation: BedrockOperation | null;
  /** The model id decoded (`us.anthropic.claude-sonnet-4-5-20250929-v1:0` whether `:` came raw or as `%3A`). */
  modelId: string | null;
  auth: AuthResult;
};

/** What the fake answers. `usage: null` leaves usage out (a vendor bug the gateway must survive). */
export type BedrockAnswer = {
  text?: string;
  toolCall?: BedrockToolCall;
  usage?: BedrockUsage | null;
  /** Refuse before answering (JSON error with `x-amzn-errortype`, also on stream operations). */
  error?: { type: BedrockErrorType; message?: string; status?: number };
  /** Streams only: after this many event frames, send an exception frame and end. */
  streamException?: { type: BedrockStreamExceptionType; afterEvents: number; message?: string };
  /** Streams only: after this many event frames, drop the connection without a terminal event. */
  cutAfterEvents?: number;
  /** Pause between stream frames. */
  pauseMs?: number;
};

export type FakeBedrock = {
  /** https, HTTP/2 with HTTP/1.1 fallback. */
  url: string;
  /** plain HTTP/1.1. */
  httpUrl: string;
  /** PEM of the self-signed certificate behind `url`. */
  ca: string;
  region: string;
  received: BedrockReceived[];
  /** The standing answer; tests change it. */
  answer: BedrockAnswer;
  /** One-shot answers used before `answer`, first in first out (e.g. two throttles, then the standing answer). */
  queue: BedrockAnswer[];
  /** Shorthand: the next `count` requests are refused with ThrottlingException (429). */
  throttleNext: (count: number) => void;
  /** Anthropic `anthropic_version` values Invoke accepts. */
  anthropicVersions: string[];
  close: () => Promise<void>;
};

export const defaultCredentials: BedrockCredentials = {
  region: "us-east-1",
  accessKeyId: "AKIAIOSFODNN7EXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
};

const ROUTE = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|converse|converse-stream|count-tokens)$/;
const DEFAULT_TEXT = "Hello! I'm Claude, an AI assistant. How can I help you today?";

let requestCounter = 0;
function requestId(): string {
  requestCounter++;
  return `6b1c5d0e-3f2a-4c8e-9d7b-${String(requestCounter).padStart(12, "0")}`;
}

function makeCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), "fake-bedrock-"));
  try {
    const key = join(dir, "key.pem");
    const cert = join(dir, "cert.pem");
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"].concat([
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
        "-keyout",
        key,
        "-out",
        cert,
      ]),
      { stdio: "ignore" },
    );
    return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Incoming = http.IncomingMessage | http2.Http2ServerRequest;
type Outgoing = http.ServerResponse | http2.Http2ServerResponse;

function sendError(response: Outgoing, type: BedrockErrorType | "UnknownOperationException", message: string, status?: number): void {
  const code = status ?? (type === "UnknownOperationException" ? 404 : errorStatus[type]);
  response.writeHead(code, {
    "content-type": "application/json",
    "x-amzn-requestid": requestId(),
    "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
  });
  response.end(JSON.stringify({ message }));
}

function sendJson(response: Outgoing, body: unknown, extraHeaders: Record<string, string> = {}): void {
  response.writeHead(200, { "content-type": "application/json", "x-amzn-requestid": requestId(), ...extraHeaders });
  response.end(JSON.stringify(body));
}

async function sendFrames(response: Outgoing, frames: Uint8Array[], answer: BedrockAnswer, headers: Record<string, string>): Promise<void> {
  response.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": requestId(), ...headers });
  for (let index = 0; index < frames.length; index++) {
    if (response.destroyed) return;
    if (answer.cutAfterEvents !== undefined && index === answer.cutAfterEvents) {
      cut(response);
      return;
    }
    if (answer.streamException && index === answer.streamException.afterEvents) {
      const { type, message } = answer.streamException;
      const body: Record<string, unknown> = { message: message ?? defaultStreamMessage(type) };
      if (type === "modelStreamErrorException") Object.assign(body, { originalStatusCode: 500, originalMessage: body.message });
      response.end(Buffer.from(exceptionFrame(type, body)));
      return;
    }
    // Wait until each frame is handed to the socket, so a cut after it drops nothing already "sent".
    await new Promise<void>((resolve) => (response as NodeJS.WritableStream).write(Buffer.from(frames[index]), () => resolve()));
    if (answer.pauseMs) await new Promise((resolve) => setTimeout(resolve, answer.pauseMs));
  }
  response.end();
}

/** Drops the answer mid-way: RST_STREAM with INTERNAL_ERROR over HTTP/2, a closed socket over HTTP/1.1. */
function cut(response: Outgoing): void {
  if ("stream" in response) response.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
  else response.socket?.destroy();
}

function defaultStreamMessage(type: BedrockStreamExceptionType): string {
  if (type === "throttlingException") return "Too many requests, please wait before trying again.";
  if (type === "modelStreamErrorException") return "The model encountered an error while streaming the response.";
  return "The server encountered an internal error while processing the request.";
}

export async function startFakeBedrock(options: Partial<BedrockCredentials> = {}): Promise<FakeBedrock> {
  const credentials: BedrockCredentials = { ...defaultCredentials, ...options };
  const fake: FakeBedrock = {
    url: "",
    httpUrl: "",
    ca: "",
    region: credentials.region,
    received: [],
    answer: {},
    queue: [],
    throttleNext: (count) => {
      for (let i = 0; i < count; i++) fake.queue.push({ error: { type: "ThrottlingException" } });
    },
    anthropicVersions: ["bedrock-2023-05-31"],
    close: async () => undefined,
  };

  async function handle(incoming: Incoming, outgoing: Outgoing): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const target = incoming.url ?? "/";
    const queryAt = target.indexOf("?");
    const rawPath = queryAt === -1 ? target : target.slice(0, queryAt);
    const query = new URLSearchParams(queryAt === -1 ? "" : target.slice(queryAt + 1));
    let body: any = null;
    try {
      body = raw.length ? JSON.parse(raw.toString("utf8")) : null;
    } catch {
      body = null;
    }
    const route = ROUTE.exec(rawPath);
    let modelId: string | null = null;
    if (route) {
      try {
        modelId = decodeURIComponent(route[1]);
      } catch {
        modelId = null;
      }
    }
    const headers = incoming.headers as BedrockReceived["headers"];
    const auth = await verifyBedrockAuth({ method: incoming.method ?? "", rawPath, query, headers, body: raw }, credentials);
    fake.received.push({
      protocol: incoming.httpVersion === "2.0" ? "h2" : "http/1.1",
      method: incoming.method ?? "",
      path: target,
      query: Object.fromEntries(query),
      headers,
      body,
      raw,
      operation: route ? (route[2] as BedrockOperation) : null,
      modelId,
      auth,
    });

    if (!auth.ok) return sendError(outgoing, auth.type, auth.message);
    if (!route || incoming.method !== "POST") return sendError(outgoing, "UnknownOperationException", "Unknown operation");
    if (modelId === null || modelId === "") return sendError(outgoing, "ValidationException", "The provided model identifier is invalid.");

    const operation = route[2] as BedrockOperation;
    if (operation === "invoke" || operation === "invoke-with-response-stream") {
      const problem = validateInvokeBody(body, raw, fake.anthropicVersions);
      if (problem) return sendError(outgoing, "ValidationException", problem);
    } else if (operation === "converse" || operation === "converse-stream") {
      const problem = validateConverseBody(body);
      if (problem) return sendError(outgoing, "ValidationException", problem);
    } else if (!body || typeof body !== "object" || typeof body.input !== "object" || body.input === null) {
      return sendError(
        outgoing,
        "ValidationException",
        "1 validation error detected: Value null at 'input' failed to satisfy constraint: Member must not be null",
      );
    }
    // A one-shot answer is spent only by a request Bedrock would have taken.
    const answer = fake.queue.shift() ?? fake.answer;
    if (answer.error) {
      const { type, message, status } = answer.error;
      return sendError(outgoing, type, message ?? errorMessage[type] ?? `${type}`, status);
    }

    const content = {
      text: answer.text ?? DEFAULT_TEXT,
      toolCall: answer.toolCall,
      usage: answer.usage === undefined ? defaultUsage : answer.usage,
    };
    switch (operation) {
      case "invoke": {
        const usageHeaders: Record<string, string> = content.usage
          ? {
              "x-amzn-bedrock-input-token-count": String(content.usage.input),
              "x-amzn-bedrock-output-token-count": String(content.usage.output),
              "x-amzn-bedrock-invocation-latency": "2317",
            }
          : {};
        return sendJson(outgoing, messagesBody(modelId, content), usageHeaders);
      }
      case "invoke-with-response-stream": {
        const frames = messagesEvents(modelId, content).map((event, index) => chunkFrame(event, index));
        return sendFrames(outgoing, frames, answer, { "x-amzn-bedrock-content-type": "application/json" });
      }
      case "converse":
        return sendJson(outgoing, converseBody(content));
      case "converse-stream": {
        const frames = converseEvents(content).map(([type, event], index) => converseFrame(type, event, index));
        return sendFrames(outgoing, frames, answer, {});
      }
      case "count-tokens":
        return sendJson(outgoing, { inputTokens: content.usage?.input ?? defaultUsage.input });
    }
  }

  const onRequest = (incoming: Incoming, outgoing: Outgoing) => {
    handle(incoming, outgoing).catch(() => outgoing.destroy());
  };
  const { key, cert } = makeCertificate();
  fake.ca = cert;
  const secure = http2.createSecureServer({ key, cert, allowHTTP1: true }, onRequest);
  const plain = http.createServer(onRequest);
  const sockets = new Set<Socket>();
  const sessions = new Set<http2.Http2Session>();
  for (const server of [secure, plain]) {
    server.on("connection", (socket: Socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
  }
  secure.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => secure.listen(0, "127.0.0.1", resolve));
  await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
  fake.url = `https://127.0.0.1:${(secure.address() as AddressInfo).port}`;
  fake.httpUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  fake.close = async () => {
    for (const session of sessions) session.destroy();
    for (const socket of sockets) socket.destroy();
    await Promise.all([
      new Promise<void>((resolve) => secure.close(() => resolve())),
      new Promise<void>((resolve) => plain.close(() => resolve())),
    ]);
  };
  return fake;
}
