// The operator's announcements (/api/admin/announcements): notices shown on the users' dashboards (maintenance, new
// models, price changes) while now is within their optional [startsAt, endsAt) window. Plain text only: the portal
// renders title and body as text, never as HTML. Create, list, change and delete; each write gets its audit row from
// adminRoute like every operator write, with the title and level as details (docs/api.md, "Announcements").
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { GatewayError } from "@/lib/platform/errors";
import { json, readBody } from "@/lib/platform/http/json";
import { auditDetail } from "./audit";
import { adminRoute, date } from "./route";

export const ANNOUNCEMENT_TITLE_MAX = 120;
export const ANNOUNCEMENT_BODY_MAX = 2_000;
/** More than a dashboard should ever show; the list answers at most this many. */
const MAX_ANNOUNCEMENTS = 200;

const fields = {
  title: z.string().trim().min(1, "write a title").max(ANNOUNCEMENT_TITLE_MAX, `at most ${ANNOUNCEMENT_TITLE_MAX} characters`),
  body: z.string().trim().min(1, "write the notice").max(ANNOUNCEMENT_BODY_MAX, `at most ${ANNOUNCEMENT_BODY_MAX} characters`),
  level: z.enum(["info", "warning"]),
  startsAt: date.nullable(),
  endsAt: date.nullable(),
};

/** endsAt, when both are set, must come after startsAt. */
function windowIsOrdered(body: { startsAt?: Date | null; endsAt?: Date | null }): boolean {
  return !body.startsAt || !body.endsAt || body.endsAt > body.startsAt;
}
const windowMessage = { message: "must be after startsAt", path: ["endsAt"] };

export const createAnnouncementSchema = z
  .object({
    title: fields.title,
    body: fields.body,
    level: fields.level.default("info"),
    startsAt: fields.startsAt.optional(),
    endsAt: fields.endsAt.optional(),
  })
  .refine(windowIsOrdered, windowMessage);

export const updateAnnouncementSchema = z
  .object({
    title: fields.title.optional(),
    body: fields.body.optional(),
    level: fields.level.optional(),
    startsAt: fields.startsAt.optional(),
    endsAt: fields.endsAt.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: "change at least one of title, body, level, startsAt, endsAt" });

type Row = {
  id: string;
  title: string;
  body: string;
  level: string;
  startsAt: Date | null;
  endsAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

/** "scheduled" before startsAt, "ended" from endsAt on, else "current" (shown on dashboards). */
export function announcementState(row: Pick<Row, "startsAt" | "endsAt">, now = new Date()): "scheduled" | "current" | "ended" {
  if (row.startsAt && row.startsAt > now) return "scheduled";
  if (row.endsAt && row.endsAt <= now) return "ended";
  return "current";
}

function publicAnnouncement(row: Row) {
  return { ...row, level: row.level === "warning" ? ("warning" as const) : ("info" as const), state: announcementState(row) };
}

export const createAnnouncement = adminRoute(async (request) => {
  const body = await readBody(request, createAnnouncementSchema);
  if (body.endsAt && body.endsAt <= new Date())
    throw new GatewayError("invalid_request", "endsAt is in the past: the notice would never show", { param: "endsAt" });
  if ((await db().announcement.count()) >= MAX_ANNOUNCEMENTS)
    throw new GatewayError("conflict", `There are ${MAX_ANNOUNCEMENTS} announcements, the most kept; delete old ones first`);
  const row = await db().announcement.create({
    data: { title: body.title, body: body.body, level: body.level, startsAt: body.startsAt ?? null, endsAt: body.endsAt ?? null },
  });
  auditDetail(request, { title: row.title, level: row.level });
  return json(publicAnnouncement(row), 201);
});

export const listAnnouncements = adminRoute(async () => {
  const rows = await db().announcement.findMany({ orderBy: { createdAt: "desc" }, take: MAX_ANNOUNCEMENTS });
  return json({ data: rows.map(publicAnnouncement) });
});

export const updateAnnouncement = adminRoute(async (request, params) => {
  const body = await readBody(request, updateAnnouncementSchema);
  const existing = await db().announcement.findUnique({ where: { id: params.id } });
  if (!existing) throw new GatewayError("not_found", "No announcement with this id");
  const next = {
    startsAt: body.startsAt !== undefined ? body.startsAt : existing.startsAt,
    endsAt: body.endsAt !== undefined ? body.endsAt : existing.endsAt,
  };
  if (!windowIsOrdered(next)) throw new GatewayError("invalid_request", "endsAt must be after startsAt", { param: "endsAt" });
  const row = await db().announcement.update({ where: { id: existing.id }, data: body });
  auditDetail(request, { title: row.title, level: row.level, changed: Object.keys(body) });
  return json(publicAnnouncement(row));
});

export const deleteAnnouncement = adminRoute(async (request, params) => {
  const existing = await db().announcement.findUnique({ where: { id: params.id } });
  if (!existing) throw new GatewayError("not_found", "No announcement with this id");
  await db().announcement.delete({ where: { id: existing.id } });
  auditDetail(request, { title: existing.title });
  return json({ id: existing.id, deleted: true });
});
