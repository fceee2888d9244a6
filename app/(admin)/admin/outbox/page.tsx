import { OutboxAdmin } from "@/components/admin/outbox";

export const metadata = { title: "Email outbox · Operator · Model Gateway" };

export default function Page() {
  return <OutboxAdmin />;
}
