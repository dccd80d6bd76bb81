import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/**
 * Ranges refused besides what ipaddr.js does not call `unicast` (loopback, private,
 * link-local, CGNAT, unique-local, multicast, unspecified, reserved, 6to4/Teredo/NAT64…):
 * benchmarking (198.18/15), IPv4-compatible IPv6 (::/96), deprecated site-local (fec0::/10),
 * the discard prefix (100::/64) and local-use NAT64 (64:ff9b:1::/48).
 */
const ALSO_REFUSED: Cidr[] = ['198.18.0.0/15', '::/96', 'fec0::/10', '100::/64', '64:ff9b:1::/48'].map((c) => ipaddr.parseCIDR(c));

/**
 * Link-local (cloud metadata lives there: 169.254.169.254) and AWS's IPv6 metadata address:
 * no CIDR of the allow list opens them, only an entry naming the one address (/32, /128).
 */
const STICKY: Cidr[] = ['169.254.0.0/16', 'fe80::/10', 'fd00:ec2::254/128'].map((c) => ipaddr.parseCIDR(c));

/** An address as the network sees it: an IPv4-mapped IPv6 address is its IPv4 address. */
function normalize(address: string): Address | null {
  const bare = address.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(bare) ? ipaddr.process(bare) : null;
}

const within = (address: Address, [range, bits]: Cidr): boolean =>
  address.kind() === range.kind() && (address as ipaddr.IPv4).match(range as ipaddr.IPv4, bits);

const hostBits = (address: Address) => (address.kind() === 'ipv4' ? 32 : 128);

/** Parses an allow-list entry (`10.0.0.0/8`, `::1/128`, or one address); throws on anything else. */
export function parseCidr(entry: string): Cidr {
  const text = entry.trim();
  if (text.includes('/')) {
    const [address, bits] = ipaddr.parseCIDR(text);
    // An IPv4-mapped range is the IPv4 range, as addresses are compared as IPv4.
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
      return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
    }
    return [address, bits];
  }
  const address = normalize(text);
  if (!address) throw new Error(`not an IP address or CIDR: ${text}`);
  return [address, hostBits(address)];
}

/**
 * Which addresses Toolgate may connect to for a tenant's URL: public unicast only, unless
 * the operator's allow list (EGRESS_ALLOW_CIDRS) names the range. Link-local and metadata
 * addresses need an entry of their own.
 */
export class AddressPolicy {
  private readonly allowed: Cidr[];

  constructor(allowCidrs: readonly string[]) {
    this.allowed = allowCidrs.map(parseCidr);
  }

  allows(address: string): boolean {
    const parsed = normalize(address);
    if (!parsed) return false;
    if (STICKY.some((range) => within(parsed, range))) {
      return this.allowed.some(([entry, bits]) => bits === hostBits(entry) && within(parsed, [entry, bits]));
    }
    if (this.allowed.some((range) => within(parsed, range))) return true;
    return parsed.range() === 'unicast' && !ALSO_REFUSED.some((range) => within(parsed, range));
  }
}
