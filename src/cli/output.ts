/**
 * Characters that do not print as themselves on a terminal: controls (a newline, or ESC starting an escape
 * sequence that moves the cursor or recolours the screen), line and paragraph separators, lone surrogates,
 * and the bidirectional overrides and isolates that reorder a line.
 */
const UNPRINTABLE = /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}\u202a-\u202e\u2066-\u2069]/gu;

const escaped = (character: string) => `\\u{${(character.codePointAt(0) ?? 0).toString(16)}}`;

/** Text fit to print in a table: every unprintable character shown as `\u{…}`, so a name cannot forge a line. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escaped);
}

/** Characters JSON leaves as they are but a terminal would act on: DEL, C1 controls, separators, bidi controls. */
const JSON_UNPRINTABLE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** One line of JSON, with every character a terminal could act on written as a `\uXXXX` escape (still JSON). */
export function jsonLine(value: unknown): string {
  const json = JSON.stringify(value).replace(
    JSON_UNPRINTABLE,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${json}\n`;
}
