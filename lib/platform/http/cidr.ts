// Lists of address ranges (CIDRs) such as GATEWAY_TRUSTED_PROXIES: "10.0.0.0/8, 192.168.1.7, fd00::/8".
// A bare address is a range of one. IPv4 ranges also match the same addresses written IPv4-mapped (::ffff:a.b.c.d),
// which is how a dual-stack socket reports an IPv4 peer.
import { BlockList, isIP, isIPv6 } from "node:net";

export type AddressRanges = { list: BlockList; empty: boolean; has: (address: string) => boolean };

/** Parses a comma-separated list; `errors` names every entry that is not an address or a CIDR. */
export function parseRanges(text: string | undefined): { ranges: AddressRanges; errors: string[] } {
  const list = new BlockList();
  const errors: string[] = [];
  let count = 0;
  for (const raw of (text ?? "").split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const [address = "", prefix, extra] = entry.split("/");
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const length = prefix === undefined ? bits : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (!family || extra !== undefined || !(length >= 0 && length <= bits)) {
      errors.push(`'${entry}' is not an IPv4 or IPv6 address or CIDR (such as 10.0.0.0/8 or fd00::/8)`);
      continue;
    }
    list.addSubnet(address, length, family === 4 ? "ipv4" : "ipv6");
    count++;
  }
  const has = (candidate: string): boolean => {
    const address = stripZone(candidate);
    const family = isIP(address);
    if (!family || count === 0) return false;
    return list.check(address, family === 4 ? "ipv4" : "ipv6");
  };
  return { ranges: { list, empty: count === 0, has }, errors };
}

/** An address without its IPv6 zone (fe80::1%eth0) or IPv4-mapped prefix (::ffff:10.0.0.1 → 10.0.0.1). */
export function plainAddress(address: string): string {
  const bare = stripZone(address.trim());
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  return mapped ? mapped[1]! : bare;
}

function stripZone(address: string): string {
  const zone = address.indexOf("%");
  return zone >= 0 ? address.slice(0, zone) : address;
}

/**
 * The bucket for a client address. IPv4 (also written as `::ffff:a.b.c.d`) counts per address; IPv6 counts per /64,
 * because one subscriber usually holds a whole /64 and could otherwise rotate through 2^64 addresses.
 */
export function addressBucket(ip: string): string {
  let address = ip.trim().toLowerCase();
  const zone = address.indexOf("%");
  if (zone >= 0) address = address.slice(0, zone);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv6(address)) {
    const [head = "", tail = ""] = address.split("::");
    const left = head ? head.split(":") : [];
    const right = tail ? tail.split(":") : [];
    const groups = address.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
    return `${groups
      .slice(0, 4)
      .map((group) => parseInt(group, 16).toString(16))
      .join(":")}::/64`;
  }
  return address;
}
