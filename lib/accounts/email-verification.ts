// Whether a new account must confirm its email before it can sign in (SECURITY.md, "Web hardening": enumeration and unverified email).
// The operator's setting "signup.verifyEmail" (true/false, on the portal's Settings page) decides; without it,
// verification is on exactly when the gateway can send mail (SMTP_URL set). A fresh machine without mail keeps
// immediate sign-up. Accounts made by the operator, the seeded admin and accounts that existed before this
// setting count as verified (migration 0005).
import { db } from "@/lib/platform/db/client";
import { env } from "@/lib/platform/env";

export const VERIFY_EMAIL_SETTING = "signup.verifyEmail";

export type VerificationMode = { required: boolean; source: "setting" | "mail" };

export async function emailVerificationMode(): Promise<VerificationMode> {
  const row = await db().setting.findUnique({ where: { key: VERIFY_EMAIL_SETTING } });
  if (typeof row?.value === "boolean") return { required: row.value, source: "setting" };
  return { required: Boolean(env().SMTP_URL), source: "mail" };
}

export async function emailVerificationRequired(): Promise<boolean> {
  return (await emailVerificationMode()).required;
}
