import { KeysPage } from "@/components/portal/keys";

export const metadata = { title: "API keys · Model Gateway" };

export default function Page() {
  return <KeysPage />;
}
