// A key's address allowlists (docs/api.md, "Key budgets and allowed addresses"): IPv4 and IPv6 CIDRs or single
// addresses, checked against the client's address as every throttle reads it (lib/platform/http/client-address.ts,
// behind GATEWAY_TRUSTED_PROXIES the address they forwarded). The operator's list and the owner's are both checked,
// so an owner can only narrow what the operator allowed.
import { BlockList, isIP } from "node:net";
import { GatewayError } from "@/lib/platform/errors";
import { parseRanges, plainAddress, type AddressRanges } from "@/lib/platform/http/cidr";

/** The most entries one list may hold. */
export const MAX_ALLOWED_IPS = 100;

type Cidr = { address: string; bits: number; family: "ipv4" | "ipv6" };

function parseCidr(entry: string): Cidr | null {
  const [raw = "", prefix, extra] = entry.split("/");
  const address = plainAddress(raw);
  const family = isIP(address);
  if (!family || extra !== undefined || address !== raw.trim()) return null;
  const max = family === 4 ? 32 : 128;
  const bits = prefix === undefined ? max : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  if (!(bits >= 0 && bits <= max)) return null;
  return { address, bits, family: family === 4 ? "ipv4" : "ipv6" };
}

/** The list as stored: trimmed, without repeats; a 400 naming the first entry that is not an address or a CIDR. */
export function validAllowedIps(list: string[], param = "allowedIps"): string[] {
  const seen = new Set<string>();
  for (const raw of list) {
    const entry = raw.trim();
    if (!entry) continue;
    if (entry.length > 64 || !parseCidr(entry))
      throw new GatewayError(
        "invalid_request",
        `'${entry.slice(0, 64)}' in ${param} is not an IPv4 or IPv6 address or CIDR (such as 203.0.113.0/24 or 2001:db8::/32)`,
        { param },
      );
    seen.add(entry);
  }
  if (seen.size > MAX_ALLOWED_IPS)
    throw new GatewayError("invalid_request", `${param} holds ${seen.size} entries; at most ${MAX_ALLOWED_IPS}`, { param });
  return [...seen];
}

/** The first entry of `inner` that does not lie wholly inside one entry of `outer`; null when all do. */
export function firstOutside(inner: string[], outer: string[]): string | null {
  const ranges = outer.map(parseCidr).filter((cidr): cidr is Cidr => cidr !== null);
  for (const entry of inner) {
    const cidr = parseCidr(entry);
    if (!cidr) return entry;
    const inside = ranges.some((range) => {
      if (range.family !== cidr.family || cidr.bits < range.bits) return false;
      // A range at least as narrow whose address lies in the wider one lies wholly inside it.
      const list = new BlockList();
      list.addSubnet(range.address, range.bits, range.family);
      return list.check(cidr.address, cidr.family);
    });
    if (!inside) return entry;
  }
  return null;
}

/** A stored list (JSON) as strings. */
export function storedList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string") : [];
}

/** The lists a request's address must pass (each non-empty one), ready to check. */
export function addressLists(...lists: unknown[]): AddressRanges[] {
  return lists
    .map(storedList)
    .filter((list) => list.length > 0)
    .map((list) => parseRanges(list.join(",")).ranges);
}
