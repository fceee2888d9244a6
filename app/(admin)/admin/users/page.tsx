import { pageSession } from "@/lib/portal/server";
import { UsersAdmin } from "@/components/admin/users";

export const metadata = { title: "Users · Operator · Model Gateway" };

export default async function Page() {
  const user = await pageSession();
  return <UsersAdmin selfId={user?.id ?? ""} />;
}
