// POST /api/user/verify-email/resend (handler: lib/user/verify-email.ts; the production server calls it directly).
import { nextRoute } from "@/lib/http/next-route";
import { resendVerification } from "@/lib/user/verify-email";

export const POST = nextRoute(resendVerification);
