import { SecurityPage } from "@/components/portal/security";

export const metadata = { title: "Security · Model Gateway" };

export default function Page() {
  return <SecurityPage />;
}
