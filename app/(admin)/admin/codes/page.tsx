import { CodesAdmin } from "@/components/admin/codes";

export const metadata = { title: "Redeem codes · Operator · Model Gateway" };

export default function Page() {
  return <CodesAdmin />;
}
