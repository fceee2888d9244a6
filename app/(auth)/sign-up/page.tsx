import { redirect } from "next/navigation";
import { pageSession } from "@/lib/portal/server";
import { SignUpForm } from "@/components/auth/sign-up-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Create an account · Model Gateway" };

export default async function SignUpPage() {
  if (await pageSession()) redirect("/dashboard");
  return <SignUpForm />;
}
