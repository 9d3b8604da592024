import { isIP } from 'node:net';

/** The eight 16-bit groups of an IPv6 address, `::` expanded. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - left.length - right.length;
  return [...left, ...Array<string>(Math.max(0, missing)).fill('0'), ...right].map((group) =>
    group.toLowerCase().replace(/^0+(?=.)/, ''),
  );
}

/**
 * The subject under which a client without a valid key is counted. IPv4 addresses count alone; IPv6
 * addresses count per /64, the block one subscriber usually holds, so rotating through one's own block does
 * not mint fresh quotas (and fresh memory). IPv4-mapped IPv6 counts as the IPv4 address.
 */
export function addressSubject(address: string): string {
  switch (isIP(address)) {
    case 4:
      return `ip:${address}`;
    case 6: {
      const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
      if (mapped !== undefined) return `ip:${mapped}`;
      return `ip:${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
    }
    default:
      // Fastify's address always parses; this keeps a malformed one from minting a subject per value.
      return 'ip:unknown';
  }
}
