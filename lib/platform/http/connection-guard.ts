// Bounds on what a slow or hostile client can hold, for the production server (server.ts). node:http bounds the time
// to send the headers (headersTimeout) and idle keep-alive connections (keepAliveTimeout) itself; this adds what it
// lacks:
// - connections per client address and in total. At the total cap a new connection first pushes out the oldest one
//   that holds no request being answered (idle, or still sending its headers or body), so a few hundred stuck
//   sockets cannot keep /healthz or real clients out; only when every connection is busy is the newcomer refused;
// - a minimum rate for request bodies after a grace period, measured window by window, so a 50 MB upload over a
//   slow link works while a body dripping a byte every 20 s is cut. Time the gateway itself is not reading (a
//   handler that has not got to the body yet, its buffer full) is not held against the client;
// - responses the client does not read: a connection whose pending output has not moved for `sendStallMs` is closed,
//   so an unread answer does not hold its memory (and its upstream) forever.
// Trusted proxies (GATEWAY_TRUSTED_PROXIES) carry many clients on few addresses: they are exempt from the
// per-address cap.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { addressBucket, plainAddress } from "./cidr";

export type ConnectionLimits = {
  maxConnections: number;
  maxPerAddress: number;
  bodyMinBytesPerSecond: number;
  bodyGraceMs: number;
  sendStallMs: number;
  /** Addresses exempt from the per-address cap (trusted proxies). */
  isExempt: (address: string) => boolean;
  /** Called when the guard closes or refuses a connection (for the log). */
  onEvent?: (event: { kind: "refused_address" | "refused_total" | "evicted" | "slow_body" | "send_stalled"; address: string }) => void;
};

type Connection = {
  socket: Socket;
  address: string;
  exempt: boolean;
  request: IncomingMessage | null;
  response: ServerResponse | null;
  /** Body-rate window: when it started and the socket's bytesRead then. */
  windowStart: number;
  windowBytes: number;
  /** Output progress: the socket's bytesWritten when last seen moving, and when. */
  writeMark: number;
  writeSince: number;
};

export type ConnectionGuard = {
  /** Whether the guard refused this socket: its request must not be handled. */
  refused: (socket: Socket) => boolean;
  stop: () => void;
};

const REFUSED = Symbol("gateway.connection-refused");

function rawAnswer(socket: Socket, status: string, message: string): void {
  const body = JSON.stringify({ error: { code: status.startsWith("503") ? "overloaded" : "request_timeout", message } });
  socket.end(
    `HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  // A client that does not read the answer must not keep the socket: it goes when written, or after a second.
  setTimeout(() => socket.destroy(), 1000).unref();
}

export function guardConnections(server: Server, limits: ConnectionLimits): ConnectionGuard {
  const connections = new Map<Socket, Connection>();
  const perAddress = new Map<string, number>();
  const now = () => performance.now();

  const release = (connection: Connection) => {
    if (!connections.delete(connection.socket)) return;
    const left = (perAddress.get(connection.address) ?? 1) - 1;
    if (left > 0) perAddress.set(connection.address, left);
    else perAddress.delete(connection.address);
  };

  /** The oldest connection that holds no request being answered: idle, or its request still arriving. */
  const evictable = (): Connection | null => {
    let receiving: Connection | null = null;
    for (const connection of connections.values()) {
      if (!connection.request) return connection;
      if (!receiving && !connection.request.complete) receiving = connection;
    }
    return receiving;
  };

  const refuse = (socket: Socket, message: string) => {
    (socket as Socket & { [REFUSED]?: boolean })[REFUSED] = true;
    socket.pause();
    rawAnswer(socket, "503 Service Unavailable", message);
  };

  server.on("connection", (socket: Socket) => {
    // Counted like the sign-in throttle counts: IPv6 per /64, which one subscriber usually holds whole.
    const peer = plainAddress(socket.remoteAddress ?? "");
    const exempt = limits.isExempt(peer);
    const address = addressBucket(peer);
    if (!exempt && (perAddress.get(address) ?? 0) >= limits.maxPerAddress) {
      limits.onEvent?.({ kind: "refused_address", address });
      refuse(socket, `Too many connections from your address (at most ${limits.maxPerAddress}); reuse connections or close idle ones`);
      return;
    }
    if (connections.size >= limits.maxConnections) {
      const victim = evictable();
      if (!victim) {
        limits.onEvent?.({ kind: "refused_total", address });
        refuse(socket, "The gateway is at its connection limit; try again shortly");
        return;
      }
      limits.onEvent?.({ kind: "evicted", address: victim.address });
      release(victim);
      victim.socket.destroy();
    }
    const at = now();
    const connection: Connection = {
      socket,
      address,
      exempt,
      request: null,
      response: null,
      windowStart: at,
      windowBytes: 0,
      writeMark: 0,
      writeSince: at,
    };
    connections.set(socket, connection);
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    socket.once("close", () => release(connection));
  });

  server.on("request", (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const connection = connections.get(incoming.socket);
    if (!connection) return;
    connection.request = incoming;
    connection.response = outgoing;
    connection.windowStart = now();
    connection.windowBytes = incoming.socket.bytesRead;
    // A method, not an arrow function bound to a name: the TypeScript runner names each such closure as it is made,
    // a cost per request (docs/decisions/0014-no-fetch-classes-on-the-hot-path.md).
    const { done } = {
      done() {
        if (connection.request !== incoming) return;
        connection.request = null;
        connection.response = null;
      },
    };
    // Answered before its body was read (a 401 on an upload): node:http then reads and discards the rest, which
    // must still arrive at the minimum rate, so the request stays watched until its body has ended.
    outgoing.once("finish", () => (incoming.complete ? done() : incoming.once("end", done)));
    // 'close' also follows a normal 'finish': only a closed connection or a complete body ends the watch here.
    outgoing.once("close", () => {
      if (incoming.complete || incoming.socket?.destroyed !== false) done();
    });
  });

  const checkBody = (connection: Connection, at: number): boolean => {
    const request = connection.request;
    if (!request || request.complete) return true;
    const socket = connection.socket;
    // The gateway is the one not reading (its buffer is full): not the client's fault; start a fresh window.
    if (request.readableLength >= request.readableHighWaterMark || socket.isPaused()) {
      connection.windowStart = at;
      connection.windowBytes = socket.bytesRead;
      return true;
    }
    const elapsed = at - connection.windowStart;
    if (elapsed < limits.bodyGraceMs) return true;
    const received = socket.bytesRead - connection.windowBytes;
    if (received >= (limits.bodyMinBytesPerSecond * elapsed) / 1000) {
      connection.windowStart = at;
      connection.windowBytes = socket.bytesRead;
      return true;
    }
    limits.onEvent?.({ kind: "slow_body", address: connection.address });
    if (!connection.response?.headersSent) {
      rawAnswer(
        socket,
        "408 Request Timeout",
        `The request body arrived slower than ${limits.bodyMinBytesPerSecond} bytes per second; the connection was closed`,
      );
    } else socket.destroy();
    return false;
  };

  const checkOutput = (connection: Connection, at: number): boolean => {
    const socket = connection.socket;
    if (socket.writableLength === 0 || socket.bytesWritten !== connection.writeMark) {
      connection.writeMark = socket.bytesWritten;
      connection.writeSince = at;
      return true;
    }
    if (at - connection.writeSince < limits.sendStallMs) return true;
    limits.onEvent?.({ kind: "send_stalled", address: connection.address });
    socket.destroy();
    return false;
  };

  const sweepMs = Math.max(100, Math.min(1000, Math.floor(Math.min(limits.bodyGraceMs, limits.sendStallMs) / 4)));
  const timer = setInterval(() => {
    const at = now();
    for (const connection of [...connections.values()]) {
      if (connection.socket.destroyed) {
        release(connection);
        continue;
      }
      if (checkBody(connection, at)) checkOutput(connection, at);
    }
  }, sweepMs);
  timer.unref();

  return {
    refused: (socket) => Boolean((socket as Socket & { [REFUSED]?: boolean })[REFUSED]),
    stop: () => clearInterval(timer),
  };
}
