import { redirect } from "next/navigation";
import { modelSources, pageSession } from "@/lib/portal/server";
import { Playground } from "@/components/playground/playground";

export const metadata = { title: "Playground · Model Gateway" };

export default async function PlaygroundPage() {
  const user = await pageSession();
  if (!user) redirect("/sign-in?callbackUrl=/playground");
  // Which models the built-in simulator serves, so simulated results are labelled as such.
  return <Playground userId={user.id} sources={await modelSources()} />;
}
