// Cache invalidation and other "tell every instance" messages. In-process always; across instances through
// Redis pub/sub when REDIS_URL is set (lib/server/redis.ts attaches it).
import { EventEmitter } from "node:events";
import { singleton } from "./singleton";

export type GatewayEvent =
  | { type: "key.changed"; keyHash?: string; keyId?: string; userId?: string }
  | { type: "channels.changed" }
  | { type: "prices.changed" }
  | { type: "groups.changed" }
  | { type: "catalog.changed" }
  | { type: "user.changed"; userId: string }
  | { type: "settings.changed" };

type Bus = { local: EventEmitter; remote: ((event: GatewayEvent) => void) | null };

function bus(): Bus {
  return singleton("events", () => {
    const local = new EventEmitter();
    local.setMaxListeners(100);
    return { local, remote: null } as Bus;
  });
}

export function publish(event: GatewayEvent): void {
  deliver(event);
  bus().remote?.(event);
}

/** Delivers an event that arrived from another instance (or this one) to local subscribers. */
export function deliver(event: GatewayEvent): void {
  bus().local.emit("event", event);
}

export function subscribe(listener: (event: GatewayEvent) => void): () => void {
  bus().local.on("event", listener);
  return () => bus().local.off("event", listener);
}

export function setRemotePublisher(remote: ((event: GatewayEvent) => void) | null): void {
  bus().remote = remote;
}
