import { UsagePage } from "@/components/portal/usage";

export const metadata = { title: "Usage · Model Gateway" };

export default function Page() {
  return <UsagePage />;
}
