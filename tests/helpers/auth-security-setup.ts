// Shared by the key and auth security tests (tests/integration/auth-*.test.ts; SECURITY.md, "The security list, test
// by test"): one gateway logging at debug level per test file (the hooks below run in the file that imports this), keys
// in every state, a funded valid key, a PNG, and fake upstreams.
import { after, before } from "node:test";
import sharp from "sharp";
import { createUserWithKey, startGateway, stopAllGateways, type Gateway } from "./gateway";
import { startFakeUpstream, type FakeUpstream } from "./fake-upstream";

export let gateway: Gateway;
export const keys: Record<string, string> = {};
export let valid: Awaited<ReturnType<typeof createUserWithKey>>;
export let png: Buffer;
export const upstreams: FakeUpstream[] = [];

before(async () => {
  gateway = await startGateway({ env: { GATEWAY_LOG: "debug" } });
  const simulator = (await gateway.admin("GET", "/api/admin/channels")).data.find((row: { type: string }) => row.type === "simulator");
  await gateway.admin("PATCH", `/api/admin/channels/${simulator.id}`, { settings: { responsesThinkMs: 5, responsesImageMs: 10 } });
  await gateway.admin("POST", "/api/admin/groups", { name: "haiku-only", models: ["msg-haiku-4-5-20251001"] });
  valid = await createUserWithKey(gateway, { balance: 500_000_000, quota: 500_000_000 });
  keys.valid = valid.key;
  keys.expired = (await createUserWithKey(gateway, { expiresAt: "2020-01-01T00:00:00Z" })).key;
  const disabled = await createUserWithKey(gateway);
  await gateway.admin("PATCH", `/api/admin/keys/${disabled.keyId}`, { status: "disabled" });
  keys.disabled = disabled.key;
  const deleted = await createUserWithKey(gateway);
  await gateway.admin("DELETE", `/api/admin/keys/${deleted.keyId}`);
  keys.deleted = deleted.key;
  keys.otherGroup = (await createUserWithKey(gateway, { group: "haiku-only" })).key;
  keys.noQuota = (await createUserWithKey(gateway, { quota: 0 })).key;
  keys.noBalance = (await createUserWithKey(gateway, { balance: 0, unlimited: true })).key;
  const ownerDisabled = await createUserWithKey(gateway);
  await gateway.admin("PATCH", `/api/admin/users/${ownerDisabled.userId}`, { status: "disabled" });
  keys.ownerDisabled = ownerDisabled.key;
  png = await sharp({ create: { width: 256, height: 256, channels: 3, background: "#3366cc" } })
    .png()
    .toBuffer();
});
after(async () => {
  await Promise.all(upstreams.map((upstream) => upstream.close()));
  await stopAllGateways();
});

export async function fake(respond: FakeUpstream["respond"]): Promise<FakeUpstream> {
  const upstream = await startFakeUpstream(respond);
  upstreams.push(upstream);
  return upstream;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
