import { OverviewAdmin } from "@/components/admin/overview";

export const metadata = { title: "Overview · Operator · Model Gateway" };

export default function Page() {
  return <OverviewAdmin />;
}
