import { VerifyEmailForm } from "@/components/auth/verify-email-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Confirm your email · Model Gateway" };

export default async function VerifyEmailPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const token = typeof params.token === "string" ? params.token : "";
  const email = typeof params.email === "string" ? params.email : "";
  return <VerifyEmailForm token={token} email={email} />;
}
