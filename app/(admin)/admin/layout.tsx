// Operator pages: only for admins. The check is made here, on the server, before any operator page is rendered;
// a signed-in user who is not an admin gets a 403 page instead (and /api/admin refuses them as well).
import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { pageSession, signInPath } from "@/lib/portal/server";
import { PortalShell } from "@/components/portal-shell";
import { Forbidden } from "@/components/forbidden";

export const dynamic = "force-dynamic";

export default async function AdminLayout({ children }: { children: ReactNode }) {
  const user = await pageSession();
  if (!user) redirect(await signInPath());
  const shellUser = { email: user.email, role: user.role };
  return <PortalShell user={shellUser}>{user.role === "admin" ? children : <Forbidden />}</PortalShell>;
}
