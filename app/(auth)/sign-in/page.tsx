import { redirect } from "next/navigation";
import { pageSession } from "@/lib/portal/server";
import { safeCallback } from "@/lib/portal/callback";
import { env } from "@/lib/platform/env";
import { SignInForm } from "@/components/auth/sign-in-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · Model Gateway" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  // Checked against the site's public address, as the browser will resolve it (lib/portal/callback.ts).
  const callbackUrl = safeCallback(typeof params.callbackUrl === "string" ? params.callbackUrl : null, env().appUrl);
  if (await pageSession()) redirect(callbackUrl);
  const email = typeof params.email === "string" ? params.email : "";
  const reset = params.reset === "1";
  const ended = params.ended === "1";
  return <SignInForm callbackUrl={callbackUrl} initialEmail={email} afterReset={reset} sessionEnded={ended} />;
}
