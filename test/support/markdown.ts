import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Marked, type Token } from 'marked';

/** The checkout: tests run from dist/test, two folders below it. */
export const REPOSITORY = fileURLToPath(new URL('../../../', import.meta.url));

/** One Markdown file of the project's documentation. */
export interface MarkdownFile {
  /** Its path from the checkout, such as `docs/scaling-out.md`. */
  name: string;
  text: string;
}

/** The README and every guide of `docs/`: the documentation a reader follows. */
export function documentation(): MarkdownFile[] {
  const guides = readdirSync(path.join(REPOSITORY, 'docs'))
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => `docs/${file}`);
  return ['README.md', ...guides].map((name) => ({
    name,
    text: readFileSync(path.join(REPOSITORY, name), 'utf8'),
  }));
}

/** Every token of a Markdown text, the inline ones inside blocks, lists and tables included. */
export function tokensOf(markdown: string): Token[] {
  const all: Token[] = [];
  const visit = (tokens: readonly Token[] | undefined) => {
    for (const token of tokens ?? []) {
      all.push(token);
      if ('tokens' in token) visit(token.tokens);
      if (token.type === 'list') for (const item of token.items) visit(item.tokens);
      if (token.type === 'table') {
        for (const cell of token.header) visit(cell.tokens);
        for (const row of token.rows) for (const cell of row) visit(cell.tokens);
      }
    }
  };
  visit(new Marked().lexer(markdown));
  return all;
}

/** Where a file's links and images point, as written. */
export function linksOf(markdown: string): string[] {
  return tokensOf(markdown).flatMap((token) =>
    token.type === 'link' || token.type === 'image' ? [token.href] : [],
  );
}

/**
 * The code a file shows: each fenced block's lines and each inline code span, whitespace made single
 * spaces. A block's line that goes on from the one before (indented, or after a trailing `\`) is joined to it.
 */
export function codeOf(markdown: string): string[] {
  const code: string[] = [];
  for (const token of tokensOf(markdown)) {
    if (token.type === 'codespan') code.push(token.text.replace(/\s+/g, ' '));
    if (token.type !== 'code') continue;
    const lines: string[] = [];
    for (const line of token.text.split('\n')) {
      const last = lines.length - 1;
      if (last >= 0 && (/^\s+\S/.test(line) || lines[last]?.endsWith('\\'))) {
        lines[last] = `${lines[last]?.replace(/\\$/, '')} ${line.trim()}`;
      } else lines.push(line);
    }
    code.push(...lines);
  }
  return code;
}
