/** The media type of every JSON answer. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Whether an `If-None-Match` header matches the current entity tag (RFC 9110 section 13.1.2): `*` matches
 * any, otherwise any listed tag matches by weak comparison (the `W/` prefix is ignored).
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header === etag) return true;
  for (const candidate of header.split(',')) {
    const tag = candidate.trim();
    if (tag === '*') return true;
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}
