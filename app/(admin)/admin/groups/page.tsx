import { GroupsAdmin } from "@/components/admin/groups";

export const metadata = { title: "Groups & prices · Operator · Model Gateway" };

export default function Page() {
  return <GroupsAdmin />;
}
