/**
 * Characters that do not print as themselves on a terminal: controls (a newline, or ESC starting an escape
 * sequence that moves the cursor or recolours the screen), format characters (bidirectional marks,
 * overrides and isolates that reorder a line, zero-width and other invisible characters, tags), line and
 * paragraph separators, and lone surrogates.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

const escaped = (character: string) => `\\u{${(character.codePointAt(0) ?? 0).toString(16)}}`;

/** Text fit to print in a table: every unprintable character shown as `\u{…}`, so a name cannot forge a line. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escaped);
}

/** Characters JSON leaves as they are but a terminal would act on: DEL, C1 controls, separators, format characters. */
const JSON_UNPRINTABLE = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

/** A character as JSON escapes it: `\uXXXX` for each of its UTF-16 code units. */
function jsonEscaped(character: string): string {
  let units = '';
  for (let index = 0; index < character.length; index++) {
    units += `\\u${character.charCodeAt(index).toString(16).padStart(4, '0')}`;
  }
  return units;
}

/** One line of JSON, with every character a terminal could act on written as a `\uXXXX` escape (still JSON). */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value).replace(JSON_UNPRINTABLE, jsonEscaped)}\n`;
}

/** The refusal of a revoke that the database did not keep, for `admin-tokens revoke` and `keys revoke`. */
export function notRevoked(id: string): string {
  return `${printable(id)} is not revoked: it reads active again after the revoke committed (a trigger in the database, or a change made at the same moment); it still works: check the database's triggers (sqlite_master, pg_trigger), then revoke it again`;
}
