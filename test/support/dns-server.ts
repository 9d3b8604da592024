import { createUDPServer, Packet } from 'dns2';

/** The records of one name in a test zone. */
export interface ZoneEntry {
  A?: string[];
  AAAA?: string[];
  CNAME?: string;
  /** Present at a zone apex. */
  SOA?: true;
  CAA?: { flags?: number; tag: string; value: string }[];
  TXT?: string[];
}

/** Names (lower case, no trailing dot) to their records; the test may change it while the server runs. */
export type Zone = Map<string, ZoneEntry>;

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for `--resolver` and `Resolver.setServers`. */
  address: string;
  zone: Zone;
  /** Resolves once the server has answered a question about `name`. */
  asked(name: string): Promise<void>;
  close(): Promise<void>;
}

const TTL = 1;
/** RCODE 3, the name does not exist (RFC 1035 section 4.1.1); dns2's types do not declare its table. */
const NXDOMAIN = 3;

/** The answer records of one type at a name, without following aliases. */
function recordsAt(zone: Zone, name: string, type: number): Record<string, unknown>[] {
  const entry = zone.get(name);
  if (entry === undefined) return [];
  switch (type) {
    case Packet.TYPE.A:
      return (entry.A ?? []).map((address) => ({ address }));
    case Packet.TYPE.AAAA:
      return (entry.AAAA ?? []).map((address) => ({ address }));
    case Packet.TYPE.CNAME:
      return entry.CNAME === undefined ? [] : [{ domain: entry.CNAME }];
    case Packet.TYPE.TXT:
      return (entry.TXT ?? []).map((data) => ({ data }));
    case Packet.TYPE.CAA:
      return (entry.CAA ?? []).map((record) => ({
        flags: record.flags ?? 0,
        tag: record.tag,
        value: record.value,
      }));
    case Packet.TYPE.SOA:
      return entry.SOA
        ? [
            {
              primary: `ns.${name}`,
              admin: `hostmaster.${name}`,
              serial: 1,
              refresh: 3600,
              retry: 600,
              expiration: 86400,
              minimum: TTL,
            },
          ]
        : [];
    default:
      return [];
  }
}

/**
 * A real DNS server on 127.0.0.1 (UDP, a random port) answering from `zone` as a recursive resolver would:
 * a name with a CNAME answers other types with the CNAME followed by the target's records; an unknown name
 * is NXDOMAIN.
 */
export async function startDnsServer(zone: Zone = new Map(), port = 0): Promise<TestDnsServer> {
  const askedNames = new Set<string>();
  const waiting = new Map<string, (() => void)[]>();
  const server = createUDPServer((request, send) => {
    for (const question of request.questions) {
      const name = question.name.toLowerCase().replace(/\.$/, '');
      askedNames.add(name);
      for (const wake of waiting.get(name) ?? []) wake();
      waiting.delete(name);
    }
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    response.header.ra = 1;
    for (const question of request.questions) {
      let name = question.name.toLowerCase().replace(/\.$/, '');
      const add = (owner: string, type: number, records: Record<string, unknown>[]) => {
        for (const record of records)
          response.answers.push({ name: owner, type, class: Packet.CLASS.IN, ttl: TTL, ...record } as never);
      };
      if (![...zone.keys()].some((known) => known === name || known.endsWith(`.${name}`))) {
        response.header.rcode = NXDOMAIN;
        continue;
      }
      for (let hops = 0; hops < 8; hops++) {
        const own = recordsAt(zone, name, question.type);
        const alias = zone.get(name)?.CNAME;
        if (own.length > 0 || alias === undefined || question.type === Packet.TYPE.CNAME) {
          add(name, question.type, own);
          break;
        }
        add(name, Packet.TYPE.CNAME, [{ domain: alias }]);
        name = alias;
      }
    }
    send(response);
  });
  await server.listen(port, '127.0.0.1');
  const address = server.address();
  return {
    address: `127.0.0.1:${address.port}`,
    zone,
    asked: (name) =>
      askedNames.has(name)
        ? Promise.resolve()
        : new Promise((resolve) => waiting.set(name, [...(waiting.get(name) ?? []), resolve])),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
