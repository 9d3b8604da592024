import { NOTICE_DAYS } from './compatibility.js';

/**
 * The versioning policy, as Markdown: the same text is in docs/api.md (test/contract/versioning.test.ts
 * holds them equal) and in the reference (`/docs`, "Versioning policy"). The gate in `npm test` enforces it
 * against the released document (`contract/openapi-1.0.0.json`).
 */
export const VERSIONING_POLICY = `The major version is in the path (\`/v1\`). Within it, the API only grows; what a client relies on
changes only after notice, and a breaking change to a stable operation means \`/v2\`.

**Breaking** (never without notice): removing or renaming an operation, a field, an enum value, a
parameter or a response status; narrowing a type or a limit (a shorter \`maxLength\`, a higher
\`minimum\`, a stricter pattern); making an optional request field or parameter required; changing what an
error code or a header means.

**Additive** (any time, in a minor version): new operations, new optional request fields and parameters,
new fields in answers, new enum values and error codes in answers, new response statuses, new headers.
Clients ignore fields they do not know and handle codes and values they do not know as their kind.

**Notice**, by stability marker (\`x-stability\`):

| stability | notice before a breaking change |
|---|---|
| experimental | none: it may change in any release |
| beta | ${NOTICE_DAYS.beta} days |
| stable (no marker) | ${NOTICE_DAYS.stable} days, and then only in a new major version |

Notice is given by marking the operation deprecated, with \`Deprecation\`, \`Sunset\` and a \`Link\` to the notice
on every answer (RFC 9745, RFC 8594), the sunset at least the notice period away. A breaking change to a
stable operation comes as \`/v2\`, served beside \`/v1\` until \`/v1\`'s sunset.

Every change is listed in the changelog, and \`info.version\` follows it: additive changes raise the minor
version, fixes the patch version.`;
