// The account API in /openapi.json, with the same schemas the handlers validate with.
import type { Documented } from "@/lib/server/openapi";
import { createKeySchema, passwordSchema, signupSchema, topupSchema, updateOwnKeySchema } from "./handlers";
import { resetRequestSchema, resetSchema } from "./reset";
import { codeSchema } from "./two-factor";
import { resendSchema, verifySchema } from "./verify-email";

export const documentedRoutes: Documented[] = [
  { method: "post", path: "/api/user/signup", summary: "Create an account (the same answer whether or not the email is taken)", tag: "Account", security: "none", body: signupSchema },
  { method: "get", path: "/api/user/self", summary: "The signed-in user", tag: "Account", security: "session" },
  { method: "post", path: "/api/user/password", summary: "Change the password (ends other sessions)", tag: "Account", security: "session", body: passwordSchema },
  { method: "post", path: "/api/user/topup", summary: "Redeem a code; answers {quota, balance}. Also takes 'Authorization: Bearer sk-…' of the same user", tag: "Account", security: "session", body: topupSchema },
  { method: "get", path: "/api/user/keys", summary: "The user's keys", tag: "Account", security: "session" },
  { method: "post", path: "/api/user/keys", summary: "Create a key (the full key appears only in this answer)", tag: "Account", security: "session", body: createKeySchema },
  { method: "delete", path: "/api/user/keys/{id}", summary: "Revoke one of the user's keys", tag: "Account", security: "session" },
  { method: "patch", path: "/api/user/keys/{id}", summary: "Rename, pause or resume, re-date or re-cap one of the user's keys", tag: "Account", security: "session", body: updateOwnKeySchema },
  { method: "get", path: "/api/user/usage", summary: "The user's ledger rows and daily totals (?limit=&offset=&model=&status=&from=&to=)", tag: "Account", security: "session" },
  { method: "post", path: "/api/user/2fa/setup", summary: "Start two-factor setup: {secret, otpauthUrl, qrCode}", tag: "Account", security: "session" },
  { method: "post", path: "/api/user/2fa/enable", summary: "Confirm with a code; answers the backup codes once", tag: "Account", security: "session", body: codeSchema },
  { method: "post", path: "/api/user/2fa/disable", summary: "Turn two-factor off with a TOTP or backup code", tag: "Account", security: "session", body: codeSchema },
  { method: "post", path: "/api/user/reset/request", summary: "Mail a password-reset link (always answers 200)", tag: "Account", security: "none", body: resetRequestSchema },
  { method: "post", path: "/api/user/reset", summary: "Reset the password with the mailed token", tag: "Account", security: "none", body: resetSchema },
  { method: "get", path: "/api/user/models", summary: "The models open to you, with endpoints, context window, prices per 1M tokens and image prices", tag: "Account", security: "session" },
  { method: "get", path: "/api/user/playground", summary: "The playground's key (prefix, group, cap and what is left)", tag: "Account", security: "session" },
  { method: "post", path: "/api/user/playground/renew", summary: "A fresh playground key with the full cap (the old one is revoked)", tag: "Account", security: "session" },
  { method: "get", path: "/api/user/sessions", summary: "The browsers signed in to this account ({data: [{id, createdAt, expiresAt, userAgent, address, current}]})", tag: "Account", security: "session" },
  { method: "delete", path: "/api/user/sessions/{id}", summary: "Sign one session out (its cookie stops working at once)", tag: "Account", security: "session" },
  { method: "post", path: "/api/user/sessions/revoke-all", summary: "Sign out everywhere, this session included", tag: "Account", security: "session" },
  { method: "post", path: "/api/user/verify-email", summary: "Confirm a new account's email with the mailed token", tag: "Account", security: "none", body: verifySchema },
  { method: "post", path: "/api/user/verify-email/resend", summary: "Mail a new confirmation link (always the same answer)", tag: "Account", security: "none", body: resendSchema },
];
