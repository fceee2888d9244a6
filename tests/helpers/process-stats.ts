// What a running gateway holds, seen from outside: memory and open sockets from /proc, the V8 heap and active streams
// from its /metrics, and a full garbage collection through its inspector (start it with
// env NODE_OPTIONS=--inspect=127.0.0.1:0), so that "memory back near its start" is measured on live objects and not
// on garbage an idle process has not collected yet.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { WebSocket } from "undici";
import type { Gateway } from "./gateway";

export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

export function rss(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
}

/** Open sockets of a process (TCP and Unix): its listening socket, clients, upstreams, database. */
export function sockets(pid: number): number {
  let count = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:")) count++;
    } catch {
      // closed meanwhile
    }
  }
  return count;
}

async function metrics(gateway: Gateway): Promise<string> {
  return (await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${gateway.masterKey}` } })).text();
}

/** The V8 heap in use and the memory outside it that V8 tracks (Buffers), from prom-client's default metrics. */
export async function heap(gateway: Gateway): Promise<{ used: number; external: number }> {
  const text = await metrics(gateway);
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)`, "m").exec(text)?.[1] ?? NaN);
  return { used: value("gateway_process_nodejs_heap_size_used_bytes"), external: value("gateway_process_nodejs_external_memory_bytes") };
}

export async function activeStreams(gateway: Gateway): Promise<number> {
  return Number(/^gateway_active_streams (\d+)/m.exec(await metrics(gateway))?.[1] ?? NaN);
}

/** A full garbage collection in the gateway, through its inspector. */
export async function collectGarbage(gateway: Gateway): Promise<void> {
  const url = /ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/.exec(gateway.output())?.[0];
  if (!url) throw new Error("the gateway's inspector address is not in its output: start it with NODE_OPTIONS=--inspect=127.0.0.1:0");
  const socket = new WebSocket(url);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => socket.send(JSON.stringify({ id: 1, method: "HeapProfiler.collectGarbage" })));
      socket.addEventListener("message", (event) => {
        if (JSON.parse(String(event.data)).id === 1) resolve();
      });
      socket.addEventListener("error", () => reject(new Error("inspector connection failed")));
    });
  } finally {
    socket.close();
  }
}

/** Memory after two full collections: what is really held. */
export async function settledMemory(gateway: Gateway): Promise<{ rss: number; heap: number; external: number }> {
  await collectGarbage(gateway);
  await collectGarbage(gateway);
  const now = await heap(gateway);
  return { rss: rss(gateway.process.pid!), heap: now.used, external: now.external };
}
