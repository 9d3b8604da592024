/**
 * Anything shaped like one of our credentials, `_` percent-encoded or not: an API key (`ps_live_`,
 * `ps_test_`), an admin token (`ps_admin_`), a console session's cookie or second secret (`pss_`, `pssh_`)
 * and a webhook signing secret (`whsec_`). A key pasted into a path by mistake must not reach a store whose
 * readers and retention do not treat it as secret: traces, the request log.
 *
 * The first four are base62; a signing secret is base64, whose `+`, `/` and `=` (and their percent-encodings)
 * are part of it: about two thirds of secrets hold one, and a pattern that stopped there left most of the
 * secret in the row.
 */
const CREDENTIAL =
  /(?:(?:ps(?:_|%5f)(?:live|test|admin)|pssh?)(?:_|%5f)[0-9a-z%_-]*|whsec(?:_|%5f)[0-9a-z%_+/=-]*)/gi;

/** The same, not global: `test` on a global expression would start where its last match ended. */
const ANY_CREDENTIAL = new RegExp(CREDENTIAL.source, 'i');

/**
 * How many times a text is percent-decoded to look for a credential in it: `%70s_live_…` is `ps_live_…` once
 * decoded, `ps%255flive…` twice. A reader of the row (a person, a script that decodes paths) sees the
 * decoded form, so that is the form that must hold no credential. Bounded: each round costs the text's length.
 */
const DECODE_ROUNDS = 4;

/** `text` with each `%XX` as its byte, read as UTF-8; a `%` that starts no escape stays as it is. */
function percentDecoded(text: string): string {
  const parts = text.split(/(%[0-9A-Fa-f]{2})/);
  const bytes = parts.map((part, index) =>
    index % 2 === 1 ? Buffer.of(Number.parseInt(part.slice(1), 16)) : Buffer.from(part, 'utf8'),
  );
  return Buffer.concat(bytes).toString('utf8');
}

/** What a decoded text must not show raw: controls, spaces and anything past ASCII, percent-encoded again. */
const encodedAgain = (text: string) =>
  text.replace(/[^\x21-\x7e]/gu, (character) => encodeURIComponent(character));

/** Whether `text` holds anything shaped like a credential, as it is or percent-decoded. */
export function holdsCredential(text: string): boolean {
  return ANY_CREDENTIAL.test(text) || (text.includes('%') && redactCredentials(text) !== text);
}

/**
 * `text` with every credential in it replaced by `[redacted]`, in every encoding a reader would undo: as sent,
 * and percent-decoded up to {@link DECODE_ROUNDS} times. When a decoding shows a credential, the text is
 * returned decoded that far, redacted (anything unprintable encoded again).
 */
export function redactCredentials(text: string): string {
  // Every credential's prefix has a `_` or a percent-encoding: the common text pays for no expression.
  if (!text.includes('_') && !text.includes('%')) return text;
  let shown = text.replace(CREDENTIAL, '[redacted]');
  let decoded = shown;
  for (let round = 0; round < DECODE_ROUNDS && decoded.includes('%'); round += 1) {
    const next = percentDecoded(decoded);
    if (next === decoded) break;
    decoded = next;
    if (ANY_CREDENTIAL.test(decoded)) {
      decoded = decoded.replace(CREDENTIAL, '[redacted]');
      shown = encodedAgain(decoded);
    }
  }
  return shown;
}
