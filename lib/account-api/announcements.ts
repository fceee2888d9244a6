// GET /api/user/announcements: the operator's notices in force now (startsAt passed or unset, endsAt still ahead or
// unset), newest first, for the dashboard (lib/admin-api/announcements.ts writes them; docs/api.md, "Announcements").
import { db } from "@/lib/platform/db/client";
import { json } from "@/lib/platform/http/json";
import { sessionRoute } from "./route";

/** A dashboard shows a few; more would bury the page. */
const SHOWN = 10;

export const listCurrentAnnouncements = sessionRoute(async () => {
  const now = new Date();
  const rows = await db().announcement.findMany({
    where: { AND: [{ OR: [{ startsAt: null }, { startsAt: { lte: now } }] }, { OR: [{ endsAt: null }, { endsAt: { gt: now } }] }] },
    orderBy: { createdAt: "desc" },
    take: SHOWN,
  });
  return json({
    data: rows.map((row) => ({
      id: row.id,
      title: row.title,
      body: row.body,
      level: row.level === "warning" ? ("warning" as const) : ("info" as const),
      startsAt: row.startsAt,
      endsAt: row.endsAt,
      updatedAt: row.updatedAt,
    })),
  });
});
