import { checkServerIdentity, connect, type PeerCertificate } from 'node:tls';

/** What the TLS front served for a name. */
export type TlsProbe =
  | { served: true; issuer: string; expiresAt: string }
  | { served: false; reason: string; unreachable: boolean };

/** Asks the TLS front for a name's certificate. */
export type CertificateProbe = (domain: string) => Promise<TlsProbe>;

/** How long a handshake may take: the front may first be getting the certificate on demand. */
const HANDSHAKE_TIMEOUT_MS = 10_000;

/** The issuer as people name it: its organisation, else its common name. */
function issuerOf(certificate: PeerCertificate): string {
  const issuer = certificate.issuer as unknown as Record<string, string | string[] | undefined>;
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  return first(issuer.O) ?? first(issuer.CN) ?? 'unknown issuer';
}

/**
 * A TLS handshake with the domain as SNI against the TLS front (`TLS_CHECK_ADDRESS`, host:port): a
 * certificate is served for the domain when the one that comes back names it and is valid now. Its chain is
 * not judged here (the front may use its own CA, as Caddy's internal one in tests); browsers judge that.
 */
export function createCertificateProbe(address: string, now: () => number): CertificateProbe {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = Number(address.slice(colon + 1));
  return (domain) =>
    new Promise((resolve) => {
      const socket = connect({ host, port, servername: domain, rejectUnauthorized: false });
      const done = (probe: TlsProbe) => {
        socket.destroy();
        resolve(probe);
      };
      socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () =>
        done({
          served: false,
          reason: `the TLS front at ${address} did not answer in time`,
          unreachable: true,
        }),
      );
      socket.once('error', (error: NodeJS.ErrnoException) => {
        const refused = error.code === 'ECONNREFUSED' || error.code === 'EHOSTUNREACH';
        done({
          served: false,
          reason: refused
            ? `nothing answers TLS at ${address}`
            : `the TLS front at ${address} served no certificate for ${domain} (${error.code ?? error.message})`,
          unreachable: refused,
        });
      });
      socket.once('secureConnect', () => {
        const certificate = socket.getPeerCertificate();
        const notAfter = Date.parse(certificate.valid_to);
        const notBefore = Date.parse(certificate.valid_from);
        if (checkServerIdentity(domain, certificate) !== undefined) {
          done({
            served: false,
            reason: `the certificate served for ${domain} does not name it`,
            unreachable: false,
          });
        } else if (!(notBefore <= now() && now() < notAfter)) {
          done({
            served: false,
            reason: `the certificate served for ${domain} is not valid now (until ${new Date(notAfter).toISOString()})`,
            unreachable: false,
          });
        } else {
          done({ served: true, issuer: issuerOf(certificate), expiresAt: new Date(notAfter).toISOString() });
        }
      });
    });
}
