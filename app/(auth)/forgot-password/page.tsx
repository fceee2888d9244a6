import { ForgotPasswordForm } from "@/components/auth/forgot-password-form";

export const metadata = { title: "Forgot password · Model Gateway" };

export default function ForgotPasswordPage() {
  return <ForgotPasswordForm />;
}
