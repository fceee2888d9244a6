// Shared by the account tests (tests/integration/accounts-*.test.ts): assertions for plain-dialect errors, 2FA set-up
// for a signed-in browser, and a suite runner that repeats a set of tests on SQLite and on PostgreSQL.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { postgresAvailable, startGateway, stopAllGateways, type Gateway } from "./gateway";
import type { Browser } from "./user-api";
import { currentTotp } from "@/lib/accounts/totp";

after(stopAllGateways);

export const LOCKED = /^Too many attempts\. Try again in (\d+) (minutes?|seconds?)\.$/;
export const now = () => Math.floor(Date.now() / 1000);
export const randomEmail = (label = "user") => `${label}-${randomBytes(5).toString("hex")}@example.com`;

/** Asserts a plain-dialect error: status, code, and optionally the message and param. */
export function assertError(result: { status: number; body: any }, status: number, code: string, message?: RegExp, param?: string) {
  assert.equal(result.status, status, JSON.stringify(result.body));
  assert.equal(result.body?.error?.code, code, JSON.stringify(result.body));
  if (message) assert.match(result.body.error.message, message);
  if (param) assert.equal(result.body.error.param, param);
}

/** Sets up and enables 2FA for a signed-in browser; returns the secret, the step used, and the backup codes. */
export async function enableTwoFactor(browser: Browser) {
  const setup = await browser.call("POST", "/api/user/2fa/setup", {});
  assert.equal(setup.status, 200, JSON.stringify(setup.body));
  const epoch = now();
  const code = await currentTotp(setup.body.secret, epoch);
  const enabled = await browser.call("POST", "/api/user/2fa/enable", { code });
  assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
  return { secret: setup.body.secret as string, epoch, code, backupCodes: enabled.body.backupCodes as string[] };
}

/** The gateway of the suite that is running (a live binding: each database's suite sets it before its tests). */
export let gateway: Gateway;

/** Runs `tests` against a gateway with the portal on SQLite, then on PostgreSQL where it is reachable. */
export function onBothDatabases(name: string, tests: () => void): void {
  for (const database of ["sqlite", "postgres"] as const) {
    describe(`${name} on ${database === "sqlite" ? "SQLite" : "PostgreSQL"}`, async () => {
      if (database === "postgres" && !(await postgresAvailable())) {
        test("PostgreSQL is not reachable on 127.0.0.1:5432", { skip: true }, () => undefined);
        return;
      }
      before(async () => {
        gateway = await startGateway({ portal: true, database });
      });
      tests();
    });
  }
}
