// The audit log's rows in words (docs/api.md, "The audit log"): what kind of object a write concerned, and a sentence
// naming it, e.g. `Channel "openai-main" updated`, from the row's route, status and recorded details.

/** The kinds of change the log can be filtered by, with the route prefix that marks each. */
export const AUDIT_KINDS = {
  channel: "/api/admin/channels",
  group: "/api/admin/groups",
  price: "/api/admin/prices",
  settings: "/api/admin/settings",
  user: "/api/admin/users",
  key: "/api/admin/keys",
  code: "/api/admin/redeem-codes",
  catalog: "/api/admin/catalog",
  moderation: "/api/admin/moderation",
} as const;
export type AuditKind = keyof typeof AUDIT_KINDS;

const NOUNS: Record<AuditKind, string> = {
  channel: "Channel",
  group: "Group",
  price: "Price of",
  settings: "Settings",
  user: "User",
  key: "Key",
  code: "Redeem codes",
  catalog: "Catalog entry",
  moderation: "Content policy",
};

export function auditKindOf(action: string): AuditKind | null {
  const path = action.slice(action.indexOf(" ") + 1);
  for (const [kind, prefix] of Object.entries(AUDIT_KINDS)) if (path === prefix || path.startsWith(`${prefix}/`)) return kind as AuditKind;
  return null;
}

/** A sentence for one audit row: `Channel "openai-main" updated`, `Price of "std-5.5" set`, `Settings changed`. */
export function auditSummary(row: { action: string; status: number; detail: unknown }): string {
  const [method = "", path = ""] = row.action.split(" ");
  const detail = (row.detail && typeof row.detail === "object" ? row.detail : {}) as Record<string, unknown>;
  const kind = auditKindOf(row.action);
  const named = typeof detail.name === "string" ? detail.name : typeof detail.email === "string" ? detail.email : null;
  const noun = kind ? NOUNS[kind] : "Object";
  const subject = named && kind !== "settings" ? `${noun} "${named}"` : noun;
  if (path.endsWith("/test")) return `${subject} tested`;
  if (path.endsWith("/fetch-models")) return `${subject}: upstream models listed`;
  if (path.endsWith("/reset-2fa")) return `${subject}: two-factor sign-in turned off`;
  if (path.endsWith("/send-reset")) return `${subject}: password-reset link sent`;
  if (path.endsWith("/void")) return "Redeem codes voided";
  if (kind === "code" && method === "POST") return "Redeem codes generated";
  if (kind === "settings") return "Settings changed";
  if (kind === "moderation") return "Content policy changed";
  if (kind === "price") return `${subject} set`;
  if (method === "DELETE") return `${subject} deleted`;
  if (method === "PATCH" || method === "PUT") return `${subject} updated`;
  if (method === "POST")
    return `${subject} ${row.status === 201 || kind === "channel" || kind === "user" || kind === "key" ? "created" : "updated"}`;
  return row.action;
}
