// A key lookup in flight while the key is revoked must not put the stale, active key back into the cache
// (lib/keys/lookup.ts). The interleaving is forced, not timed: the database stand-in holds each read until the test
// releases it, and the revocation event is published while the read is held.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const dataDir = mkdtempSync(path.join(tmpdir(), "key-race-"));
Object.assign(process.env, {
  DATABASE_URL: `file:${path.join(dataDir, "unused.db")}`,
  GATEWAY_DATA_DIR: dataDir,
  GATEWAY_SECRET: "a-test-secret-of-at-least-thirty-two-characters",
  GATEWAY_LOG: "silent",
});

const { setSingleton } = await import("@/lib/platform/singleton");
const { findKey } = await import("@/lib/keys/lookup");
const { publish } = await import("@/lib/platform/events");

type Row = {
  id: string;
  keyHash: string;
  prefix: string;
  name: string;
  userId: string;
  group: string;
  unlimited: boolean;
  expiresAt: null;
  status: string;
  pausedByOwner: boolean;
  deletedAt: Date | null;
  rateLimitPerMinute: null;
  user: { status: string };
};

const row = (keyHash: string, status: string): Row => ({
  id: `key-${keyHash}`,
  keyHash,
  prefix: "sk-test",
  name: "test",
  userId: "user-1",
  group: "default",
  unlimited: false,
  expiresAt: null,
  status,
  pausedByOwner: false,
  deletedAt: null,
  rateLimitPerMinute: null,
  user: { status: "active" },
});

// Each read waits for the test to answer it; `reads` lists them in order.
const reads: { keyHash: string; answer: (value: Row | null) => void }[] = [];
setSingleton("db.prisma", {
  apiKey: {
    findUnique: ({ where }: { where: { keyHash: string } }) =>
      new Promise<Row | null>((resolve) => reads.push({ keyHash: where.keyHash, answer: resolve })),
  },
});

/** Lets pending promise callbacks run, so a read that was started has reached the stand-in. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("a revocation racing a key lookup", () => {
  test("a read that started before the revocation answers its own request but is not cached: the next lookup reads again and sees the revoked key", async () => {
    const hash = "race-a";
    const inFlight = findKey(hash);
    await settle();
    assert.equal(reads.length, 1);
    // The key is revoked (the operator's write committed) while the read above still holds the old row.
    publish({ type: "key.changed", keyId: `key-${hash}` });
    reads[0]!.answer(row(hash, "active"));
    assert.equal((await inFlight)?.status, "active");

    const next = findKey(hash);
    await settle();
    assert.equal(reads.length, 2, "the stale row must not have been cached");
    reads[1]!.answer(row(hash, "disabled"));
    assert.equal((await next)?.status, "disabled");
    // And the fresh answer is cached as usual.
    assert.equal((await findKey(hash))?.status, "disabled");
    assert.equal(reads.length, 2);
  });

  test("a lookup that starts after the revocation does not join the older read still in flight", async () => {
    const hash = "race-b";
    const before = findKey(hash);
    await settle();
    const first = reads.length - 1;
    publish({ type: "key.changed", keyHash: hash });
    const after = findKey(hash);
    await settle();
    assert.equal(reads.length, first + 2, "the lookup after the revocation starts its own read");
    reads[first + 1]!.answer(row(hash, "disabled"));
    reads[first]!.answer(row(hash, "active"));
    assert.equal((await after)?.status, "disabled");
    await before;
    assert.equal((await findKey(hash))?.status, "disabled", "the older read finishing last does not overwrite the cache");
  });

  test("without a revocation, concurrent misses still share one read", async () => {
    const hash = "race-c";
    const first = reads.length;
    const lookups = [findKey(hash), findKey(hash), findKey(hash)];
    await settle();
    assert.equal(reads.length, first + 1);
    reads[first]!.answer(row(hash, "active"));
    for (const principal of await Promise.all(lookups)) assert.equal(principal?.status, "active");
  });
});
