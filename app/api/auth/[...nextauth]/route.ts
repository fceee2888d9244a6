// next-auth's routes (sign-in, sign-out, session, its own HTML pages), each answer with a policy of its own
// (lib/auth/pages.ts): these are not portal pages, so proxy.ts does not reach them.
import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/options";
import { withAuthPageHeaders } from "@/lib/auth/pages";
import { env } from "@/lib/platform/env";

const handler = NextAuth(authOptions());

async function withHeaders(request: Request, context: { params: Promise<{ nextauth: string[] }> }): Promise<Response> {
  return withAuthPageHeaders(await handler(request, context), env().appUrl);
}

export { withHeaders as GET, withHeaders as POST };
