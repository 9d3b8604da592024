import GithubSlugger from 'github-slugger';
import { Marked, type Token, type Tokens } from 'marked';
import { GUIDE_IMAGE, GUIDES_PATH, guideHref } from './guides.js';
import { escapeHtml } from './page.js';

// Loaded on the first request for a guide, not at start: marked and its slugger cost every process about
// 20 ms to import, and most processes (the CLI's commands, a server nobody reads the guides of) never render one.

/** The text a reader sees of some inline tokens: what a heading's anchor is made from. */
function plainText(tokens: readonly Token[]): string {
  return tokens
    .map((token) =>
      'tokens' in token && token.tokens !== undefined
        ? plainText(token.tokens)
        : 'text' in token
          ? token.text
          : '',
    )
    .join('');
}

/** The anchors of a Markdown file's headings, as GitHub makes them (repeats numbered `-1`, `-2`, ...). */
export function headingAnchors(markdown: string): string[] {
  const slugger = new GithubSlugger();
  return new Marked()
    .lexer(markdown)
    .filter((token): token is Tokens.Heading => token.type === 'heading')
    .map((heading) => slugger.slug(plainText(heading.tokens)));
}

/** A guide rendered: its HTML, and its sections (the second-level headings) for the list beside it. */
export interface RenderedGuide {
  html: string;
  sections: { id: string; title: string }[];
}

/**
 * Renders one guide's Markdown as its page's HTML: GitHub's heading anchors (so a link to
 * `configuration.md#the-data-directory` lands on the same heading here as on GitHub), links made server paths
 * by `guideHref` (a file the server does not serve keeps its text, unlinked), images served beside the pages;
 * and lists its sections.
 */
export function renderGuide(markdown: string, slugs: ReadonlySet<string>): RenderedGuide {
  const slugger = new GithubSlugger();
  const sections: RenderedGuide['sections'] = [];
  const marked = new Marked({
    gfm: true,
    // What scrolls sideways on a narrow screen (code, tables) can be scrolled from the keyboard too.
    hooks: {
      postprocess: (html) =>
        html
          .replaceAll('<pre>', '<pre tabindex="0">')
          .replaceAll('<table>', '<div class="wide" tabindex="0"><table>')
          .replaceAll('</table>', '</table></div>'),
    },
    renderer: {
      heading({ tokens, depth }) {
        const id = slugger.slug(plainText(tokens));
        if (depth === 2) sections.push({ id, title: plainText(tokens) });
        return `<h${depth} id="${escapeHtml(id)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link({ href, tokens }) {
        const text = this.parser.parseInline(tokens);
        const target = guideHref(href, slugs);
        return target === undefined ? text : `<a href="${escapeHtml(target)}">${text}</a>`;
      },
      image({ href, text }) {
        if (!GUIDE_IMAGE.test(href)) return escapeHtml(text);
        return `<img src="${GUIDES_PATH}/${escapeHtml(href)}" alt="${escapeHtml(text)}">`;
      },
    },
  });
  return { html: marked.parse(markdown, { async: false }), sections };
}
