import { SettingsAdmin } from "@/components/admin/settings";

export const metadata = { title: "Settings · Operator · Model Gateway" };

export default function Page() {
  return <SettingsAdmin />;
}
