import { Dashboard } from "@/components/portal/dashboard";

export const metadata = { title: "Dashboard · Model Gateway" };

export default async function DashboardPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  return <Dashboard welcome={params.welcome === "1"} />;
}
