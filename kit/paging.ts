/** The cursor of a `Link: <…cursor=…>; rel="next"` header: where the next page begins (none: this is the last). */
export function nextCursor(link: string | null): string | undefined {
  const target = link?.match(/<([^>]*)>\s*;\s*rel="next"/)?.[1];
  if (target === undefined) return undefined;
  return new URL(target, window.location.origin).searchParams.get('cursor') ?? undefined;
}
