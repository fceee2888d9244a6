// Operator settings kept in the database (they apply to every instance without a restart):
// whether self-service sign-up is open, whether new accounts confirm their email first, and which groups users may
// pick for their own keys.
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { json, readBody } from "@/lib/platform/http/json";
import { publish } from "@/lib/platform/events";
import { adminRoute } from "./handlers";
import { env } from "@/lib/platform/env";
import { emailVerificationMode, VERIFY_EMAIL_SETTING } from "@/lib/accounts/email-verification";

export const settingsSchema = z.object({
  signupEnabled: z.boolean().optional(),
  /** true or false; null goes back to the default (on exactly when SMTP_URL is set). */
  verifyEmail: z.boolean().nullable().optional(),
  userGroups: z.array(z.string().trim().min(1).max(100)).min(1, "must name at least one group").max(100).optional(),
});

async function current() {
  const rows = await db().setting.findMany({ where: { key: { in: ["signup.enabled", "user.groups"] } } });
  const verification = await emailVerificationMode();
  const value = (key: string) => rows.find((row) => row.key === key)?.value;
  const signup = value("signup.enabled");
  return {
    signupEnabled: env().GATEWAY_SIGNUP !== "off" && !(signup === false || signup === "off" || signup === "false" || signup === 0),
    signupForcedOffByEnvironment: env().GATEWAY_SIGNUP === "off",
    userGroups: Array.isArray(value("user.groups")) ? (value("user.groups") as string[]) : ["default"],
    verifyEmail: verification.required,
    verifyEmailSource: verification.source,
    mailConfigured: Boolean(env().SMTP_URL),
  };
}

export const getSettings = adminRoute(async () => json(await current()));

export const updateSettings = adminRoute(async (request) => {
  const body = await readBody(request, settingsSchema);
  if (body.signupEnabled !== undefined) {
    await db().setting.upsert({
      where: { key: "signup.enabled" },
      create: { key: "signup.enabled", value: body.signupEnabled },
      update: { value: body.signupEnabled },
    });
  }
  if (body.verifyEmail === null) await db().setting.deleteMany({ where: { key: VERIFY_EMAIL_SETTING } });
  else if (body.verifyEmail !== undefined) {
    const value = body.verifyEmail;
    await db().setting.upsert({ where: { key: VERIFY_EMAIL_SETTING }, create: { key: VERIFY_EMAIL_SETTING, value }, update: { value } });
  }
  if (body.userGroups) {
    await db().setting.upsert({
      where: { key: "user.groups" },
      create: { key: "user.groups", value: body.userGroups },
      update: { value: body.userGroups },
    });
  }
  publish({ type: "settings.changed" });
  return json(await current());
});
