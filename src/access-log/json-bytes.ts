/**
 * JSON values written as UTF-8 straight into a buffer, each function taking the offset to write at and
 * returning where it ended: the access log's line is encoded in place, in its batch, without first being
 * built as a string that must then be flattened and encoded (which cost as much as the rest of the line).
 * The caller makes room beforehand: {@link maxStringBytes} says how much a string may take.
 */

const ZERO = 0x30;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const DOT = 0x2e;
/** The largest integer {@link writeNumber} writes by digits: the digits are cut off with `| 0`, which is 32-bit. */
const LARGEST_SMALL_INTEGER = 0x7fffffff;
/**
 * The most bytes a number takes in JSON: a sign, `0.`, five zeros and 17 significant digits
 * (`-0.0000011301320260118402`). JavaScript writes numbers from 1e-7 to 1e21 in positional notation, so the
 * longest are just above 1e-6 (ECMA-262 Number::toString: up to five zeros after the point); an exponent
 * form is at most 24 (`-1.2345678901234567e-100`).
 */
export const MAX_NUMBER_BYTES = 25;

/** The most bytes `value` can take as a JSON string: quotes, and six bytes a character (`\u001f`). */
export function maxStringBytes(value: string): number {
  return 2 + 6 * value.length;
}

/** Writes bytes encoded beforehand: the parts of a line that repeat. */
export function writeBytes(buffer: Buffer, at: number, bytes: Uint8Array): number {
  buffer.set(bytes, at);
  return at + bytes.length;
}

/**
 * Writes `value` as a JSON string. The values of the access log are printable ASCII, quotes and
 * backslashes aside, which is copied a character to a byte; anything else goes through `JSON.stringify`.
 */
export function writeString(buffer: Buffer, at: number, value: string): number {
  buffer[at] = QUOTE;
  let end = at + 1;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || code > 0x7e || code === QUOTE || code === BACKSLASH) {
      return at + buffer.write(JSON.stringify(value), at);
    }
    buffer[end++] = code;
  }
  buffer[end] = QUOTE;
  return end + 1;
}

/** Writes a number: a small non-negative integer by its digits, anything else as `JSON.stringify` does. */
export function writeNumber(buffer: Buffer, at: number, value: number): number {
  if (!(Number.isInteger(value) && value >= 0 && value <= LARGEST_SMALL_INTEGER)) {
    return at + buffer.write(JSON.stringify(value), at, 'latin1');
  }
  let digits = 1;
  for (let power = 10; power <= value; power *= 10) digits++;
  const end = at + digits;
  let rest = value;
  for (let index = end - 1; index > at; index--) {
    const tenth = (rest / 10) | 0;
    buffer[index] = ZERO + rest - tenth * 10;
    rest = tenth;
  }
  buffer[at] = ZERO + rest;
  return end;
}

/** Writes a duration in milliseconds, to the microsecond and always with three decimals (`12.030`). */
export function writeMilliseconds(buffer: Buffer, at: number, milliseconds: number): number {
  const micros = Math.round(Math.max(milliseconds, 0) * 1000);
  const fraction = micros % 1000;
  const end = writeNumber(buffer, at, (micros - fraction) / 1000);
  buffer[end] = DOT;
  buffer[end + 1] = ZERO + ((fraction / 100) | 0);
  buffer[end + 2] = ZERO + (((fraction / 10) | 0) % 10);
  buffer[end + 3] = ZERO + (fraction % 10);
  return end + 4;
}
