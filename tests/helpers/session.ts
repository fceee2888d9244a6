// Signs in through next-auth's real HTTP flow: CSRF token, credentials callback, session cookie.
export type SignInResult = { ok: true; cookie: string } | { ok: false; error: string; status: number };

function collectCookies(response: Response, jar: Map<string, string>): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const index = pair!.indexOf("=");
    jar.set(pair!.slice(0, index), pair!.slice(index + 1));
  }
}

export function cookieHeader(jar: Map<string, string>): string {
  return [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
}

/** `headers` go with both requests (e.g. X-Forwarded-For, as a trusted proxy would send it). */
export async function signIn(
  baseUrl: string,
  email: string,
  password: string,
  code?: string,
  headers: Record<string, string> = {},
): Promise<SignInResult> {
  const jar = new Map<string, string>();
  const csrfResponse = await fetch(`${baseUrl}/api/auth/csrf`, { headers });
  collectCookies(csrfResponse, jar);
  const { csrfToken } = (await csrfResponse.json()) as { csrfToken: string };
  const form = new URLSearchParams({ csrfToken, email, password, json: "true", callbackUrl: `${baseUrl}/` });
  if (code) form.set("code", code);
  const response = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(jar) },
    body: form,
    redirect: "manual",
  });
  collectCookies(response, jar);
  const session = [...jar.keys()].find((name) => name.endsWith("next-auth.session-token"));
  if (session) return { ok: true, cookie: cookieHeader(jar) };
  // next-auth answers a refused sign-in with a redirect whose URL carries ?error=<message>.
  const location = response.headers.get("location") ?? "";
  let error = "";
  try {
    const body = (await response.json()) as { url?: string };
    error = new URL(body.url ?? location, baseUrl).searchParams.get("error") ?? "";
  } catch {
    error = location ? (new URL(location, baseUrl).searchParams.get("error") ?? "") : "";
  }
  return { ok: false, error, status: response.status };
}
