// One instance per process. Next.js bundles route code separately from server.ts, so a plain module-level
// variable would exist twice (one copy per bundle); keeping shared state on globalThis gives both the same cache,
// database pool and event bus.
const store = ((globalThis as { __gateway?: Map<string, unknown> }).__gateway ??= new Map<string, unknown>());

export function singleton<T>(name: string, create: () => T): T {
  if (!store.has(name)) store.set(name, create());
  return store.get(name) as T;
}

export function resetSingleton(name: string): void {
  store.delete(name);
}

export function setSingleton<T>(name: string, value: T): void {
  store.set(name, value);
}
