// With REDIS_URL, what must agree across instances goes through Redis (docs/decisions/0009-scale-out-on-postgres-and-redis.md):
// cache invalidation (pub/sub), per-key request limits and sign-in throttling (shared counters).
// Without it, the same features work in-process.
import { Redis } from "ioredis";
import { randomUUID } from "node:crypto";
import { env } from "@/lib/platform/env";
import { deliver, setRemotePublisher, type GatewayEvent } from "@/lib/platform/events";
import { createLimiter } from "@/lib/platform/limiter";
import { setRequestLimiter } from "@/lib/gateway/rate-limit";
import { useLimiter } from "@/lib/accounts/throttle";
import { setSingleton, singleton } from "@/lib/platform/singleton";
import { log } from "@/lib/platform/log";

const CHANNEL = "gateway:events";

type Connections = { commands: Redis; subscriber: Redis; instance: string };

export function redisConnections(): Connections | null {
  return singleton<Connections | null>("redis", () => null);
}

export async function startRedis(): Promise<void> {
  const url = env().REDIS_URL;
  if (!url) return;
  const instance = randomUUID();
  const options = { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: true };
  const commands = new Redis(url, options);
  const subscriber = new Redis(url, options);
  for (const connection of [commands, subscriber]) connection.on("error", (error) => log.warn("redis error", { error: error.message }));
  await Promise.all([commands.connect(), subscriber.connect()]);
  await subscriber.subscribe(CHANNEL);
  subscriber.on("message", (_channel, message) => {
    try {
      const { origin, event } = JSON.parse(message) as { origin: string; event: GatewayEvent };
      // This instance already delivered its own events locally when it published them.
      if (origin !== instance) deliver(event);
    } catch (error) {
      log.warn("unreadable event from redis", { error });
    }
  });
  setRemotePublisher((event) => {
    commands
      .publish(CHANNEL, JSON.stringify({ origin: instance, event }))
      .catch((error) => log.warn("could not publish event", { error: error.message }));
  });
  const limiter = createLimiter(commands);
  setRequestLimiter(limiter);
  useLimiter(limiter);
  setSingleton("redis", { commands, subscriber, instance });
  log.info("redis connected", { instance });
}

export async function stopRedis(): Promise<void> {
  const connections = redisConnections();
  if (!connections) return;
  setRemotePublisher(null);
  await Promise.all([connections.commands.quit(), connections.subscriber.quit()]).catch(() => undefined);
}
