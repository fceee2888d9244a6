import { AnnouncementsAdmin } from "@/components/admin/announcements";

export const metadata = { title: "Announcements · Operator · Model Gateway" };

export default function Page() {
  return <AnnouncementsAdmin />;
}
