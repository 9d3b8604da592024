import { href } from '../router.js';
import { useTitle } from '../title.js';

/** A path below the console that names no page, or an item that does not exist. */
export function NotFound({ what = 'This page' }: { what?: string }) {
  useTitle('Not found');
  return (
    <>
      <h1 tabIndex={-1}>Not found</h1>
      <p>{what} does not exist. It may have been removed, or the address may be mistyped.</p>
      <p>
        <a href={href('domains')}>Go to Domains</a>
      </p>
    </>
  );
}
