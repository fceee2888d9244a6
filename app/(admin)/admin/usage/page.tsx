import { LedgerAdmin } from "@/components/admin/ledger";

export const metadata = { title: "Ledger · Operator · Model Gateway" };

export default function Page() {
  return <LedgerAdmin />;
}
