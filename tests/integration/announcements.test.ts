// Announcements (lib/admin-api/announcements.ts, lib/account-api/announcements.ts; docs/api.md, "Announcements"): the
// operator creates, lists, changes and deletes them, each write in the audit log; a user reads only the ones in force
// now; bad input is a 400 naming the field; a non-operator gets 403. On SQLite and on PostgreSQL (its own migration),
// the latter skipped when no server is reachable.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createUserWithKey, postgresAvailable, startGateway, stopAllGateways, type DatabaseKind, type Gateway } from "../helpers/gateway";
import { callApi, signedIn, type Browser } from "../helpers/user-api";

let gateway: Gateway;
let user: Browser;
let member: Awaited<ReturnType<typeof createUserWithKey>>;

after(stopAllGateways);

const operator = (method: string, pathname: string, body?: unknown) =>
  callApi(gateway.url, method, pathname, { body, headers: { authorization: `Bearer ${gateway.masterKey}` } });
const hour = 3_600_000;
const at = (offset: number) => new Date(Date.now() + offset).toISOString();

const postgres = await postgresAvailable();
for (const database of ["sqlite", "postgres"] as DatabaseKind[])
  describe(`announcements on ${database}`, { skip: database === "postgres" && !postgres ? "PostgreSQL is not reachable" : false }, () => {
    before(async () => {
      await stopAllGateways();
      gateway = await startGateway({ database, portal: true });
      member = await createUserWithKey(gateway);
      user = await signedIn(gateway.url, member.email, member.password);
    });
    test("the operator creates, lists, changes and deletes one; each write has its audit row", async () => {
      const created = await operator("POST", "/api/admin/announcements", {
        title: "Maintenance tonight",
        body: "From 22:00 UTC\nabout 10 minutes.",
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.level, "info", "info by default");
      assert.equal(created.body.state, "current");
      assert.equal(created.body.body, "From 22:00 UTC\nabout 10 minutes.", "line breaks kept");
      const id = created.body.id as string;

      const listed = await operator("GET", "/api/admin/announcements");
      assert.equal(listed.status, 200);
      assert.ok(listed.body.data.some((row: { id: string }) => row.id === id));

      const changed = await operator("PATCH", `/api/admin/announcements/${id}`, { level: "warning", title: "Maintenance moved" });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.equal(changed.body.level, "warning");
      assert.equal(changed.body.title, "Maintenance moved");
      assert.equal(changed.body.body, "From 22:00 UTC\nabout 10 minutes.", "fields not sent stay");

      const deleted = await operator("DELETE", `/api/admin/announcements/${id}`);
      assert.deepEqual(deleted.body, { id, deleted: true });
      assert.equal((await operator("DELETE", `/api/admin/announcements/${id}`)).status, 404);
      assert.equal((await operator("PATCH", `/api/admin/announcements/${id}`, { title: "x" })).status, 404);

      const audit = (await gateway.admin("GET", `/api/admin/audit?targetId=${id}`)).data as {
        action: string;
        detail: Record<string, unknown>;
      }[];
      assert.deepEqual(
        audit.map((row) => row.action).sort(),
        ["DELETE /api/admin/announcements/{id}", "PATCH /api/admin/announcements/{id}"],
        "the change and the deletion, by the announcement's id",
      );
      const creation = ((await gateway.admin("GET", "/api/admin/audit")).data as { action: string; detail: { title?: string } }[]).find(
        (row) => row.action === "POST /api/admin/announcements" && row.detail.title === "Maintenance tonight",
      );
      assert.ok(creation, "the creation is in the audit log with its title");
    });

    test("a user sees only the ones in force now, newest first, and not the operator's state field", async () => {
      const now = await operator("POST", "/api/admin/announcements", {
        title: "New model: std-tts-1",
        body: "Speech is here.",
        level: "info",
      });
      const windowed = await operator("POST", "/api/admin/announcements", {
        title: "Prices change",
        body: "On the first of the month.",
        level: "warning",
        startsAt: at(-hour),
        endsAt: at(hour),
      });
      const scheduled = await operator("POST", "/api/admin/announcements", { title: "Later", body: "Not yet.", startsAt: at(24 * hour) });
      const ending = await operator("POST", "/api/admin/announcements", { title: "Ending", body: "Soon over.", endsAt: at(hour) });
      for (const created of [now, windowed, scheduled, ending]) assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(scheduled.body.state, "scheduled");
      // Ended: moved into the past by the operator after it was posted.
      const ended = await operator("PATCH", `/api/admin/announcements/${ending.body.id}`, { startsAt: at(-2 * hour), endsAt: at(-hour) });
      assert.equal(ended.status, 200, JSON.stringify(ended.body));
      assert.equal(ended.body.state, "ended");

      const seen = await user.call("GET", "/api/user/announcements");
      assert.equal(seen.status, 200);
      const titles = seen.body.data.map((row: { title: string }) => row.title);
      assert.deepEqual(titles, ["Prices change", "New model: std-tts-1"], "in force only, newest first");
      assert.equal(seen.body.data[0].level, "warning");
      assert.equal(seen.body.data[0].state, undefined);

      // Without a session: 401.
      assert.equal((await callApi(gateway.url, "GET", "/api/user/announcements")).status, 401);
    });

    test("bad input is a 400 naming the field; nothing is stored", async () => {
      const before = (await operator("GET", "/api/admin/announcements")).body.data.length;
      const cases: [unknown, string][] = [
        [{ body: "no title" }, "title"],
        [{ title: "   ", body: "blank title" }, "title"],
        [{ title: "t".repeat(121), body: "long title" }, "title"],
        [{ title: "no body" }, "body"],
        [{ title: "long body", body: "b".repeat(2001) }, "body"],
        [{ title: "bad level", body: "x", level: "danger" }, "level"],
        [{ title: "bad date", body: "x", startsAt: "tomorrow" }, "startsAt"],
        [{ title: "backwards", body: "x", startsAt: at(2 * hour), endsAt: at(hour) }, "endsAt"],
        [{ title: "already over", body: "x", endsAt: at(-hour) }, "endsAt"],
        [{ title: "html is text", body: 42 }, "body"],
      ];
      for (const [body, param] of cases) {
        const answer = await operator("POST", "/api/admin/announcements", body);
        assert.equal(answer.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.error.param, param, JSON.stringify(answer.body));
      }
      const created = await operator("POST", "/api/admin/announcements", { title: "ok", body: "ok", startsAt: at(hour) });
      const empty = await operator("PATCH", `/api/admin/announcements/${created.body.id}`, {});
      assert.equal(empty.status, 400);
      const reversed = await operator("PATCH", `/api/admin/announcements/${created.body.id}`, { endsAt: at(-hour) });
      assert.equal(reversed.status, 400, "an end before the stored start");
      assert.equal(reversed.body.error.param, "endsAt");
      assert.equal((await operator("GET", "/api/admin/announcements")).body.data.length, before + 1);
    });

    test("a non-operator gets 403 on every operator call, with their session or their key", async () => {
      const created = await operator("POST", "/api/admin/announcements", { title: "Mine", body: "Operator only." });
      const id = created.body.id as string;
      const calls: [string, string, unknown][] = [
        ["GET", "/api/admin/announcements", undefined],
        ["POST", "/api/admin/announcements", { title: "x", body: "y" }],
        ["PATCH", `/api/admin/announcements/${id}`, { title: "taken over" }],
        ["DELETE", `/api/admin/announcements/${id}`, undefined],
      ];
      for (const [method, pathname, body] of calls) {
        const withSession = await user.call(method, pathname, body);
        assert.equal(withSession.status, 403, `${method} ${pathname} with a user's session`);
        const withKey = await callApi(gateway.url, method, pathname, { body, headers: { authorization: `Bearer ${member.key}` } });
        assert.equal(withKey.status, 403, `${method} ${pathname} with a user's key`);
      }
      const after = (await operator("GET", "/api/admin/announcements")).body.data.find((row: { id: string }) => row.id === id);
      assert.equal(after.title, "Mine", "unchanged");
    });
  });
