import { ChannelsAdmin } from "@/components/admin/channels";

export const metadata = { title: "Channels · Operator · Model Gateway" };

export default function Page() {
  return <ChannelsAdmin />;
}
