import { RedeemPage } from "@/components/portal/redeem";

export const metadata = { title: "Redeem a code · Model Gateway" };

export default function Page() {
  return <RedeemPage />;
}
