import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { GUIDES, GUIDES_PATH, guideHref, guideUrl } from '../../src/docs/index.js';
import { headingAnchors, renderGuide } from '../../src/docs/render.js';
import { assertAccessible } from '../console/harness.js';
import { ARTIFACTS, REDOC_RENDER_MS, startWatchedBrowser, type WatchedBrowser } from '../support/browser.js';
import { documentation, linksOf, type MarkdownFile, REPOSITORY } from '../support/markdown.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * What is wrong with the relative links of some Markdown files: a file that does not exist, or an anchor that
 * no heading of the file it names makes (as GitHub makes anchors). Web links are not followed.
 */
function brokenLinks(files: readonly MarkdownFile[], read: (name: string) => string | undefined): string[] {
  const problems: string[] = [];
  for (const file of files) {
    for (const href of linksOf(file.text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue;
      const [target = '', fragment] = href.split('#', 2);
      const name =
        target === ''
          ? file.name
          : path.posix.normalize(path.posix.join(path.posix.dirname(file.name), target));
      const text = read(name);
      if (text === undefined) {
        problems.push(`${file.name}: ${href}: no file ${name}`);
        continue;
      }
      if (fragment !== undefined && !headingAnchors(text).includes(fragment)) {
        problems.push(`${file.name}: ${href}: no heading of ${name} has the anchor #${fragment}`);
      }
    }
  }
  return problems;
}

/** A file of the checkout, as text; a directory or a missing file is undefined. */
function readRepositoryFile(name: string): string | undefined {
  const file = path.join(REPOSITORY, name);
  return existsSync(file) && statSync(file).isFile() ? readFileSync(file, 'utf8') : undefined;
}

describe('the guides as files', () => {
  const files = documentation();

  test('every relative link of the README and the guides names a file that exists, at a heading it has', () => {
    assert.deepEqual(brokenLinks(files, readRepositoryFile), []);
    // The check looks: there are links to follow, anchors among them.
    const links = files.flatMap((file) => linksOf(file.text)).filter((href) => !href.includes('://'));
    assert.ok(links.length > 40, `only ${links.length} relative links`);
    assert.ok(links.filter((href) => href.includes('#')).length > 10);
  });

  test('the link check finds a missing file, a missing anchor and a missing heading of the same file', () => {
    const guide = {
      name: 'docs/a.md',
      text: '# A\n\n## Safe retries: `Idempotency-Key`\n\n[ok](#safe-retries-idempotency-key) [same](b.md#b) [gone](c.md) [typo](b.md#bb) [here](#nowhere) [web](https://example.com/x.md)\n',
    };
    const other = { name: 'docs/b.md', text: '# B\n' };
    const read = (name: string) => [guide, other].find((file) => file.name === name)?.text;
    assert.deepEqual(brokenLinks([guide, other], read), [
      'docs/a.md: c.md: no file docs/c.md',
      'docs/a.md: b.md#bb: no heading of docs/b.md has the anchor #bb',
      'docs/a.md: #nowhere: no heading of docs/a.md has the anchor #nowhere',
    ]);
  });

  test('every file of docs/ is a guide, titled by its first heading, and the README links every guide', () => {
    const guides = files.filter((file) => file.name.startsWith('docs/'));
    assert.deepEqual(
      guides.map((file) => file.name).sort(),
      GUIDES.map((guide) => `docs/${guide.slug}.md`).sort(),
    );
    for (const guide of GUIDES) {
      const text = readRepositoryFile(`docs/${guide.slug}.md`) ?? '';
      assert.equal(text.split('\n')[0], `# ${guide.title}`, `docs/${guide.slug}.md begins with its title`);
    }
    const readme = linksOf(readRepositoryFile('README.md') ?? '');
    for (const guide of GUIDES)
      assert.ok(readme.includes(`docs/${guide.slug}.md`), `README links ${guide.slug}`);
  });

  test('a link becomes its page on the server, or plain text when the server does not serve the file', () => {
    const slugs = new Set(['scaling-out']);
    assert.equal(
      guideHref('scaling-out.md#when-postgresql-fails', slugs),
      '/docs/guides/scaling-out#when-postgresql-fails',
    );
    assert.equal(guideHref('#states', slugs), '#states');
    assert.equal(guideHref('https://preactjs.com', slugs), 'https://preactjs.com');
    assert.equal(guideHref('../CHANGELOG.md', slugs), '/docs');
    assert.equal(guideHref('other.md', slugs), undefined);
    assert.equal(guideHref('../deploy/Caddyfile', slugs), undefined);
    const { html, sections } = renderGuide(
      '# T\n\n## T\n\nSee [the file](../deploy/Caddyfile) and [out](scaling-out.md).\n\n### Deeper\n',
      slugs,
    );
    assert.deepEqual(sections, [{ id: 't-1', title: 'T' }], 'the second-level headings, for the contents');
    assert.match(html, /<h1 id="t">T<\/h1>\n<h2 id="t-1">T<\/h2>/);
    assert.match(html, /See the file and <a href="\/docs\/guides\/scaling-out">out<\/a>\./);
  });
});

/** Every `href` and `src` of an HTML page. */
const targetsOf = (html: string) =>
  [...html.matchAll(/ (?:href|src)="([^"]*)"/g)].map((match) => match[1] ?? '');
const fromHtml = (text: string) => text.replaceAll('&amp;', '&').replaceAll('&#39;', "'");

describe('the guides on the server', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server?.close();
  });

  test('/docs/guides lists every guide; each page is its file rendered, every link of it answers, every anchor is there', async () => {
    const index = await fetch(`${server.url}${GUIDES_PATH}`);
    assert.equal(index.status, 200);
    assert.equal(index.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(
      index.headers.get('content-security-policy'),
      "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    const indexTargets = targetsOf(await index.text());
    for (const guide of GUIDES) assert.ok(indexTargets.includes(guideUrl(guide.slug)), guide.slug);

    const pages = new Map<string, string>();
    for (const guide of GUIDES) {
      const answer = await fetch(`${server.url}${guideUrl(guide.slug)}`);
      assert.equal(answer.status, 200, guide.slug);
      pages.set(guideUrl(guide.slug), await answer.text());
    }
    const checked = new Set<string>();
    for (const [page, html] of pages) {
      for (const target of targetsOf(html).map(fromHtml)) {
        if (/^https?:/.test(target) || target.startsWith('data:')) continue;
        const url = new URL(target, `${server.url}${page}`);
        const fragment = url.hash.slice(1);
        if (fragment !== '' && pages.has(url.pathname)) {
          assert.ok(
            pages.get(url.pathname)?.includes(` id="${fragment}"`),
            `${page}: ${target}: no such anchor`,
          );
        }
        if (checked.has(url.pathname)) continue;
        checked.add(url.pathname);
        const answer = await fetch(`${server.url}${url.pathname}${url.search}`);
        assert.equal(answer.status, 200, `${page}: ${target}`);
        await answer.arrayBuffer();
      }
    }
    assert.ok(checked.has('/docs/guides/console-domains.png'), 'the console’s picture is shown');
    assert.ok(checked.has('/docs'), 'the guides link the reference');
  });

  test('the reference, /docs, links every guide, and every link of both documents answers', async () => {
    const api = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      info: { description: string };
    };
    for (const guide of GUIDES) {
      assert.ok(api.info.description.includes(`](${guideUrl(guide.slug)})`), `/docs links ${guide.slug}`);
    }
    const admin = (await (await fetch(`${server.url}/admin/openapi.json`)).json()) as unknown;
    const descriptions = JSON.stringify([api, admin]);
    const links = [...descriptions.matchAll(/\]\((\/[^)\s]*)\)/g)].map((match) => match[1] ?? '');
    assert.ok(links.includes('/docs/guides/keys-and-admin-api'), 'the admin reference links its guide');
    for (const link of new Set(links)) {
      const url = new URL(link, server.url);
      const answer = await fetch(`${server.url}${url.pathname}`);
      assert.equal(answer.status, 200, link);
      if (url.hash !== '' && url.pathname.startsWith(GUIDES_PATH)) {
        assert.ok((await answer.text()).includes(` id="${url.hash.slice(1)}"`), `${link}: no such anchor`);
      } else await answer.arrayBuffer();
    }
  });

  test('an unknown guide, another file, or a path out of docs/ is a 404 with an Error body', async () => {
    for (const name of ['nope', 'README', 'nope.png', '..%2Fpackage.json', 'api.md', 'console-domains.PNG']) {
      const answer = await fetch(`${server.url}${GUIDES_PATH}/${name}`);
      assert.equal(answer.status, 404, name);
      const body = (await answer.json()) as { code: string; status: number };
      assert.equal(body.code, 'not_found');
      assert.equal(body.status, 404);
    }
  });

  test('a page typed with a trailing slash is sent to the page, not answered with a JSON 404', async () => {
    for (const [asked, page] of [
      ['/docs/', '/docs'],
      ['/docs/guides/', '/docs/guides'],
      ['/docs/admin/?x=1', '/docs/admin?x=1'],
      ['/docs/key/', '/docs/key'],
    ]) {
      const answer = await fetch(`${server.url}${asked}`, { redirect: 'manual' });
      assert.equal(answer.status, 301, asked);
      assert.equal(answer.headers.get('location'), page, asked);
    }
  });

  test("a guide's old address is sent to where it moved, and its new one is the page", async () => {
    const moved = await fetch(`${server.url}${GUIDES_PATH}/performance`, { redirect: 'manual' });
    assert.equal(moved.status, 301);
    assert.equal(moved.headers.get('location'), `${GUIDES_PATH}/durability-and-speed`);
    const page = await fetch(`${server.url}${GUIDES_PATH}/durability-and-speed`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<h1[^>]*>Durability and speed<\/h1>/);
    const unknown = await fetch(`${server.url}${GUIDES_PATH}/constructor`, { redirect: 'manual' });
    assert.equal(unknown.status, 404);
  });
});

describe('the guides in a real browser', () => {
  let reader: WatchedBrowser;

  before(async () => {
    reader = await startWatchedBrowser();
  });
  after(() => reader?.close());

  test('pages of text, readable at 1280 and 390 pixels, with no serious accessibility problem', async () => {
    const screens = path.join(ARTIFACTS, 'guides');
    mkdirSync(screens, { recursive: true });
    for (const [name, url] of [
      ['index', GUIDES_PATH],
      ['scaling-out', guideUrl('scaling-out')],
      ['keys-and-admin-api', guideUrl('keys-and-admin-api')],
    ] as const) {
      await reader.page.goto(`${reader.server.url}${url}`);
      await assertAccessible(reader.page, url);
      for (const width of [1280, 390]) {
        await reader.page.setViewportSize({ width, height: 900 });
        await reader.page.screenshot({
          path: path.join(screens, `${name}-${width}.png`),
          fullPage: name === 'index',
        });
      }
      await reader.page.setViewportSize({ width: 1280, height: 900 });
    }
    // From /docs, a reader reaches a guide by its link in the introduction.
    await reader.page.goto(`${reader.server.url}/docs`);
    await reader.page.locator('#redoc[data-rendered]').waitFor({ timeout: REDOC_RENDER_MS });
    await reader.page.getByRole('link', { name: 'Scaling out', exact: true }).first().click();
    await reader.page.waitForURL(`${reader.server.url}${guideUrl('scaling-out')}`);
    assert.equal(await reader.page.locator('h1').textContent(), 'Scaling out');
    assert.deepEqual(reader.failures, []);
  });

  test('no guide scrolls sideways at 390 pixels: tables and code blocks scroll in their own box, text wraps', async () => {
    // Three guides did: a URL, a metric with its labels and a command, each one word in a sentence.
    const screens = path.join(ARTIFACTS, 'guides');
    mkdirSync(screens, { recursive: true });
    await reader.page.setViewportSize({ width: 390, height: 900 });
    try {
      for (const { slug } of [{ slug: '' }, ...GUIDES]) {
        const url = slug === '' ? GUIDES_PATH : guideUrl(slug);
        await reader.page.goto(`${reader.server.url}${url}`);
        const { scrollWidth, past, scrollers, unknown } = (await reader.page.evaluate(`(() => {
          const main = document.querySelector('main');
          // A box that scrolls on its own: what is inside it may be wider than the window.
          const inScroller = (element) => element.closest('.wide, pre') !== null;
          const past = [...document.querySelectorAll('body *')].find(
            (element) => !inScroller(element) && element.getBoundingClientRect().right > window.innerWidth + 0.5,
          );
          return {
            scrollWidth: document.documentElement.scrollWidth,
            past: past ? past.tagName.toLowerCase() + ': ' + past.textContent.slice(0, 60) : '',
            // Each box that scrolls stays inside the text's column.
            scrollers: [...main.querySelectorAll('.wide, pre')]
              .filter((box) => box.getBoundingClientRect().right > main.getBoundingClientRect().right + 0.5)
              .map((box) => box.textContent.slice(0, 60)),
            // A word of the text in angle brackets that Markdown passed on as an HTML tag, and the page hid.
            unknown: [...main.querySelectorAll('*')]
              .filter((element) => element instanceof HTMLUnknownElement)
              .map((element) => element.tagName.toLowerCase()),
          };
        })()`)) as { scrollWidth: number; past: string; scrollers: string[]; unknown: string[] };
        assert.ok(scrollWidth <= 390, `${url} scrolls sideways (${scrollWidth} px) from: ${past}`);
        assert.deepEqual(scrollers, [], `${url}: boxes wider than the column`);
        assert.deepEqual(unknown, [], `${url}: words taken for tags`);
        await assertAccessible(reader.page, `${url} at 390 px`);
        await reader.page.screenshot({ path: path.join(screens, `${slug || 'index'}-390-top.png`) });
      }
    } finally {
      await reader.page.setViewportSize({ width: 1280, height: 900 });
    }
    assert.deepEqual(reader.failures, []);
  });
});
