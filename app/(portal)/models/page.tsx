import { ModelsPage } from "@/components/portal/models";

export const metadata = { title: "Models & pricing · Model Gateway" };

export default function Page() {
  return <ModelsPage />;
}
