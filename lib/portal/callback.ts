// Where to go after signing in. Only paths of this site: an absolute or protocol-relative URL in callbackUrl must
// not send anyone elsewhere (open redirect).
export function safeCallback(value: string | null | undefined): string {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return "/dashboard";
  if (value.startsWith("/sign-in") || value.startsWith("/api/")) return "/dashboard";
  return value;
}
