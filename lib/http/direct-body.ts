// Payloads of responses whose body is text the gateway made itself, so the production server can write them in
// one call instead of pumping a stream (lib/http/node-adapter.ts). A Response without an entry is streamed.
export const directBodies = new WeakMap<Response, string>();

export function textResponse(text: string, status: number, headers: Record<string, string>): Response {
  const response = new Response(text, { status, headers });
  directBodies.set(response, text);
  return response;
}
