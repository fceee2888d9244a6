import { AuditAdmin } from "@/components/admin/audit";

export const metadata = { title: "Audit log · Operator · Model Gateway" };

export default function Page() {
  return <AuditAdmin />;
}
