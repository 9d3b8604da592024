import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ADMIN_BODY_ERRORS, type AdminOperation } from './admin-operation.js';
import { stringEnum } from './enum.js';
import { OrNull, Timestamp } from './fields.js';

// The admin API's custom domains: their schemas and operations (docs/custom-domains.md).

const DomainName = (description: string) =>
  Type.String({
    minLength: 3,
    maxLength: 254,
    pattern: '^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?\\.?$',
    description,
    examples: ['docs.example.com'],
  });

export const DomainParams = Type.Object(
  { name: DomainName('The domain, such as docs.example.com.') },
  { additionalProperties: false },
);

export const NewDomain = Type.Object(
  {
    name: DomainName('The domain or subdomain, such as docs.example.com.'),
    primary: Type.Optional(
      Type.Boolean({ description: 'Whether it is the primary domain (the one before it stops being so).' }),
    ),
    redirectTo: Type.Optional(DomainName('Send its requests to this domain instead of serving them.')),
    redirectStatus: Type.Optional(
      Type.Unsafe<301 | 302 | 307 | 308>({
        type: 'integer',
        enum: [301, 302, 307, 308],
        description: 'The redirect status: 301 (documented), 302, 307 or 308.',
      }),
    ),
  },
  { additionalProperties: false, description: 'A custom domain to add. Unknown fields are refused.' },
);

const DomainStateSchema = stringEnum(
  ['pending', 'verified', 'active', 'misconfigured', 'certificate_failed'] as const,
  { description: 'Where the domain stands: see [Custom domains](/docs/guides/custom-domains#states).' },
);

export const Domain = Type.Object(
  {
    name: Type.String(),
    source: stringEnum(['file', 'api'] as const, {
      description: '`file`: declared in the config file; `api`: added with the CLI or the admin API.',
    }),
    primary: Type.Boolean(),
    redirect: OrNull(
      Type.Object(
        { to: Type.String(), status: Type.Integer() },
        { additionalProperties: false, description: 'Where its requests are sent, with which status.' },
      ),
    ),
    state: DomainStateSchema,
    reason: Type.String({ description: 'Why it is in its state.' }),
    fix: OrNull(Type.String({ description: 'What its owner should change.' })),
    dns: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          type: stringEnum(['CNAME', 'TXT'] as const),
          value: Type.String(),
          required: Type.Boolean(),
        },
        { additionalProperties: false },
      ),
      { description: 'The records its owner adds at the DNS provider.' },
    ),
    addedAt: Timestamp('When it was added.'),
    stateSince: Timestamp('When it entered its state.'),
    checkedAt: OrNull(Timestamp('Its last check.')),
    nextCheckAt: Timestamp('When it is checked next.'),
    lastCheck: OrNull(
      stringEnum(['passed', 'failed', 'could_not_check'] as const, {
        description: '`could_not_check`: the DNS server did not answer; that never counts as a failure.',
      }),
    ),
    certificate: OrNull(
      Type.Object(
        { issuer: Type.String(), expiresAt: Timestamp('When the certificate ends.') },
        {
          additionalProperties: false,
          description: 'The certificate the TLS front served at the last check.',
        },
      ),
    ),
  },
  { additionalProperties: false, description: 'A custom domain of the published reference.' },
);

export const DomainSettings = Type.Object(
  {
    target: OrNull(
      Type.String({
        description:
          '`DOMAINS_TARGET`: the name every custom domain’s CNAME points at. null: the operator has not set ' +
          'it, so no domain can be verified and only the ownership TXT record can be shown.',
        examples: ['edge.example.net'],
      }),
    ),
    requireTxt: Type.Boolean({
      description: '`DOMAINS_REQUIRE_TXT`: whether a domain needs its ownership TXT record to be verified.',
    }),
  },
  {
    additionalProperties: false,
    description: 'How custom domains are checked by this service, before any is added.',
  },
);

export const DomainRemoval = Type.Object(
  {
    name: Type.String(),
    dnsStillPointsHere: Type.Boolean({
      description: 'Whether its DNS still points here: its owner should remove the record.',
    }),
  },
  { additionalProperties: false, description: 'A removed domain: no longer served, no certificate issued.' },
);

export const DOMAIN_SCHEMAS = { NewDomain, Domain, DomainSettings, DomainRemoval } satisfies Record<
  string,
  TSchema
>;

export const DOMAIN_PARAMETERS = { DomainParams } satisfies Record<string, TSchema>;

export const DOMAIN_OPERATIONS = [
  {
    operationId: 'listDomains',
    method: 'GET',
    path: '/domains',
    tag: 'Domains',
    role: 'viewer',
    summary: 'List custom domains',
    description: 'Every custom domain, those of the config file included, by name, with its state.',
    success: { status: 200, description: 'Every domain.', schema: 'Domain', array: true },
    errors: [],
  },
  {
    operationId: 'getDomainSettings',
    method: 'GET',
    path: '/domain-settings',
    tag: 'Domains',
    role: 'viewer',
    summary: 'Show how custom domains are checked',
    description:
      'The DNS target every custom domain points at (`DOMAINS_TARGET`, null when it is not set) and whether ' +
      'the ownership TXT record is required: what to tell a domain’s owner before it is added.',
    success: { status: 200, description: 'The settings.', schema: 'DomainSettings' },
    errors: [],
  },
  {
    operationId: 'addDomain',
    method: 'POST',
    path: '/domains',
    tag: 'Domains',
    role: 'admin',
    summary: 'Add a custom domain',
    description:
      'Adds a domain as `pending` and answers the DNS records its owner adds (a CNAME to the DNS target, ' +
      'and the ownership TXT record). Every instance re-checks it on its schedule; it is served, and gets ' +
      'a certificate, once verified.',
    requestBody: 'NewDomain',
    success: { status: 201, description: 'The domain.', schema: 'Domain' },
    errors: [...ADMIN_BODY_ERRORS, 409],
  },
  {
    operationId: 'getDomain',
    method: 'GET',
    path: '/domains/{name}',
    tag: 'Domains',
    role: 'viewer',
    summary: 'Show a custom domain',
    description: 'Its state, why, the fix, its DNS records, its certificate and its next check.',
    params: 'DomainParams',
    success: { status: 200, description: 'The domain.', schema: 'Domain' },
    errors: [400, 404],
  },
  {
    operationId: 'verifyDomain',
    method: 'POST',
    path: '/domains/{name}/verify',
    tag: 'Domains',
    role: 'admin',
    summary: 'Re-verify a custom domain',
    description:
      'Checks the domain now. One waiting for its certificate, or whose certificate failed, gets 30 new ' +
      'minutes, as a new attempt.',
    params: 'DomainParams',
    success: { status: 200, description: 'The domain after the check.', schema: 'Domain' },
    errors: [400, 404],
  },
  {
    operationId: 'removeDomain',
    method: 'DELETE',
    path: '/domains/{name}',
    tag: 'Domains',
    role: 'admin',
    summary: 'Remove a custom domain',
    description:
      'Every instance stops serving it and refuses certificates for it at once. Domains of the config ' +
      'file are removed there (409 here).',
    params: 'DomainParams',
    success: { status: 200, description: 'The removal.', schema: 'DomainRemoval' },
    errors: [400, 404, 409],
  },
] as const satisfies readonly AdminOperation<keyof typeof DOMAIN_SCHEMAS, keyof typeof DOMAIN_PARAMETERS>[];

export type NewDomain = Static<typeof NewDomain>;
export type Domain = Static<typeof Domain>;
export type DomainSettings = Static<typeof DomainSettings>;
