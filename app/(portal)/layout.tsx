// Every signed-in page: the session is checked on the server (no page of the portal renders without one).
import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { pageSession, signInPath } from "@/lib/portal/server";
import { PortalShell } from "@/components/portal-shell";
import { env } from "@/lib/platform/env";

export const dynamic = "force-dynamic";

export default async function PortalLayout({ children }: { children: ReactNode }) {
  const user = await pageSession();
  if (!user) redirect(await signInPath());
  // The configured public address, if any: examples and the base URL shown in the sidebar use it.
  return (
    <PortalShell user={{ email: user.email, role: user.role }} appUrl={env().APP_URL ?? null}>
      {children}
    </PortalShell>
  );
}
