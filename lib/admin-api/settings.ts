// Operator settings kept in the database (they apply to every instance without a restart):
// whether self-service sign-up is open, whether new accounts confirm their email first, which groups users may
// pick for their own keys, and the request fields (or betas) that change what the vendor bills, beyond the built-in
// ones (docs/billing.md, "Price modifiers").
import { z } from "zod";
import { db } from "@/lib/platform/db/client";
import { json, readBody } from "@/lib/platform/http/json";
import { publish } from "@/lib/platform/events";
import { adminRoute } from "./route";
import { auditChanges } from "./audit";
import { env } from "@/lib/platform/env";
import { emailVerificationMode, VERIFY_EMAIL_SETTING } from "@/lib/accounts/email-verification";
import {
  BUILT_IN_MODIFIERS,
  MODIFIER_FIELDS_SETTING,
  MODIFIER_NAME,
  modifierFieldNames,
  RESERVED_FIELDS,
} from "@/lib/money/price-modifiers";

export const settingsSchema = z.object({
  signupEnabled: z.boolean().optional(),
  /** true or false; null goes back to the default (on exactly when SMTP_URL is set). */
  verifyEmail: z.boolean().nullable().optional(),
  userGroups: z.array(z.string().trim().min(1).max(100)).min(1, "must name at least one group").max(100).optional(),
  /** Field names (or `anthropic-beta:<beta>`) refused unless the model's price sets a multiplier for them. */
  priceModifierFields: z
    .array(
      z
        .string()
        .trim()
        .regex(MODIFIER_NAME, "a field name (letters, digits and _, starting with a letter) or anthropic-beta:<beta>")
        .refine((name) => !RESERVED_FIELDS.includes(name), "every request carries this field; it cannot be a price modifier"),
    )
    .max(100)
    .optional(),
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
    priceModifierFields: await modifierFieldNames(),
    /** The vendors' own modifiers, always known (lib/money/price-modifiers.ts). */
    builtInPriceModifierFields: Object.keys(BUILT_IN_MODIFIERS),
    verifyEmail: verification.required,
    verifyEmailSource: verification.source,
    mailConfigured: Boolean(env().SMTP_URL),
  };
}

export const getSettings = adminRoute(async () => json(await current()));

export const updateSettings = adminRoute(async (request) => {
  const body = await readBody(request, settingsSchema);
  const before = await current();
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
  if (body.priceModifierFields) {
    const value = [...new Set(body.priceModifierFields)].filter((name) => !Object.hasOwn(BUILT_IN_MODIFIERS, name));
    await db().setting.upsert({
      where: { key: MODIFIER_FIELDS_SETTING },
      create: { key: MODIFIER_FIELDS_SETTING, value },
      update: { value },
    });
  }
  publish({ type: "settings.changed" });
  const after = await current();
  // What each given setting was and is now (verifyEmail: null goes back to the default, recorded as the value it gives).
  auditChanges(
    request,
    "Settings",
    before,
    Object.fromEntries(Object.keys(body).map((field) => [field, after[field as keyof typeof after]])),
  );
  return json(after);
});
