// "The client's address", the one answer every throttle and connection cap uses. Without trusted proxies it is the
// socket's peer. Behind a load balancer every socket comes from the balancer, so GATEWAY_TRUSTED_PROXIES names the
// proxies whose X-Forwarded-For is believed: the header is read from the right (each proxy appends the address it
// saw), skipping trusted proxies, and the first address that is not one of them is the client. Entries left of it
// were written by the client and are never used: anyone can send `X-Forwarded-For: 1.2.3.4`.
import { isIP } from "node:net";
import { env } from "@/lib/platform/env";
import { singleton } from "@/lib/platform/singleton";
import { parseRanges, plainAddress, type AddressRanges } from "./cidr";

export function trustedProxies(): AddressRanges {
  return singleton("http.trusted-proxies", () => parseRanges(env().GATEWAY_TRUSTED_PROXIES).ranges);
}

/** Whether a socket's peer is a trusted proxy (exempt from per-address connection caps). */
export function isTrustedProxy(socketAddress: string | undefined): boolean {
  return Boolean(socketAddress) && trustedProxies().has(socketAddress!);
}

/**
 * The client's address for a request that arrived from `socketAddress` with `forwardedFor` (all X-Forwarded-For
 * header values joined by commas, as node:http does). Always a plain address (IPv4-mapped IPv6 unwrapped), or ""
 * when the socket has none.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  ranges: AddressRanges = trustedProxies(),
): string {
  let current = plainAddress(socketAddress ?? "");
  if (!current || ranges.empty || !ranges.has(current)) return current;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? "")).split(",");
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = plainAddress(stripPort(hops[index]!.trim()));
    // Not an address: the client wrote it, so the last proxy's peer (what we have) is as far as the chain is known.
    if (!isIP(hop)) return current;
    current = hop;
    if (!ranges.has(hop)) return hop;
  }
  return current;
}

/** "1.2.3.4:5678" and "[2001:db8::1]:443" as some proxies write them; a bare IPv6 address is left alone. */
function stripPort(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return bracketed[1]!;
  const v4 = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(hop);
  return v4 ? v4[1]! : hop;
}
