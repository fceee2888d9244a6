// The sign-in decision, kept apart from next-auth so it can be tested directly.
// Every refusal reads the same for an unknown email and a wrong password, and costs the same time.
import { db } from "../db/client";
import { verifyAgainstDummy, verifyPassword } from "./password";

export class SignInError extends Error {}

export async function signInWithPassword(input: { email: string; password: string; code?: string; address: string }) {
  const email = input.email.trim().toLowerCase();
  const user = email ? await db().user.findUnique({ where: { email } }) : null;
  const valid = user ? await verifyPassword(input.password, user.passwordHash) : await verifyAgainstDummy(input.password);
  if (!user || !valid || user.status !== "active") throw new SignInError("Invalid email or password");
  return user;
}
