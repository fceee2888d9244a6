// A value loaded from the database, kept in memory for 30 s and dropped at once when `event` is published (on any
// instance, through lib/platform/events.ts). Concurrent readers of an expired value share one load.
import { singleton } from "./singleton";
import { subscribe, type GatewayEvent } from "./events";

const TTL_MS = 30_000;

type Snapshot<T> = { value: T | null; loaded: number; loading: Promise<T> | null };

export function cached<T>(name: string, event: GatewayEvent["type"], load: () => Promise<T>): () => Promise<T> {
  const state = singleton(name, () => {
    const snapshot: Snapshot<T> = { value: null, loaded: 0, loading: null };
    subscribe((published) => {
      if (published.type === event) snapshot.loaded = 0;
    });
    return snapshot;
  });
  return async () => {
    if (state.value && Date.now() - state.loaded < TTL_MS) return state.value;
    state.loading ??= load()
      .then((value) => {
        state.value = value;
        state.loaded = Date.now();
        return value;
      })
      .finally(() => (state.loading = null));
    return state.loading;
  };
}
