/**
 * Anything shaped like one of our credentials, `_` percent-encoded or not: an API key (`ps_live_`,
 * `ps_test_`), an admin token (`ps_admin_`), a console session's cookie or second secret (`pss_`, `pssh_`)
 * and a webhook signing secret (`whsec_`). A key pasted into a path by mistake must not reach a store whose
 * readers and retention do not treat it as secret: traces, the request log.
 */
const CREDENTIAL = /(?:ps(?:_|%5f)(?:live|test|admin)|pssh?|whsec)(?:_|%5f)[0-9a-z%_-]*/gi;

/** The same, not global: `test` on a global expression would start where its last match ended. */
const ANY_CREDENTIAL = new RegExp(CREDENTIAL.source, 'i');

/** Whether `text` holds anything shaped like a credential. */
export function holdsCredential(text: string): boolean {
  return ANY_CREDENTIAL.test(text);
}

/** `text` with every credential in it replaced by `[redacted]`. */
export function redactCredentials(text: string): string {
  return text.replace(CREDENTIAL, '[redacted]');
}
