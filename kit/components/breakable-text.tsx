import { Fragment } from 'preact';

/**
 * Text that may go to a new line only after a `/` or a `-`, never inside a word: a path, a request id. A
 * `<wbr>` marks each place, so the text copied is the text itself (a zero-width space would be copied too).
 */
export function BreakableText({ text }: { text: string }) {
  const parts = text.split(/(?<=[/-])/);
  let at = 0;
  return (
    <>
      {parts.map((part) => {
        const start = at;
        at += part.length;
        return (
          <Fragment key={start}>
            {start > 0 && <wbr />}
            {part}
          </Fragment>
        );
      })}
    </>
  );
}
