import { hash } from 'node:crypto';
import type { Category } from '../contract/index.js';
import { JSON_CONTENT_TYPE } from '../http/index.js';
import type { CategoryRepository } from '../storage/index.js';

/** The category list as it is sent: serialized once per change, with its strong validator. */
export interface CategoryList {
  readonly body: Buffer;
  readonly etag: string;
  /** The headers of a 200 that sends the list: its type, validator and caching, built once with it. */
  readonly headers: Readonly<Record<string, string>>;
  /** The headers of a 304: the validator and caching of the 200 (RFC 9110 section 15.4.5). */
  readonly notModifiedHeaders: Readonly<Record<string, string>>;
  /** The categories themselves, ascending by id, for cutting pages from. */
  readonly rows: readonly Category[];
}

/** One page of the list: what a `CategoryList` holds, for the categories after an id, and the id to go on from. */
export interface CategoryPage extends Omit<CategoryList, 'rows'> {
  /** The last id of the page when another page follows; undefined on the last page. */
  readonly nextAfter: number | undefined;
}

export interface CategoryService {
  /** The cached list, if it is current; the hot path of `GET /v1/categories` touches nothing else. */
  current(): CategoryList | undefined;
  /** The list, loading it from storage if a write made the cache stale. */
  list(): Promise<CategoryList>;
  /**
   * At most `limit` categories after the id `after`, serialized once per change and kept (a client walking
   * the pages asks for the same ones), with an ETag of their own.
   */
  page(limit: number, after: number): Promise<CategoryPage>;
  /** Marks the cached list stale: after a create committed here, or when another instance wrote. */
  invalidate(): void;
}

/** Pages kept per version of the list: enough for the walks of many clients, bounded whatever they ask. */
const KEPT_PAGES = 256;

/**
 * The list may be kept by the client's own cache but must be revalidated before each use, which its strong
 * ETag makes cheap (304). `private`: the answer is per API key (its rate-limit headers), so no shared cache
 * may keep it. Every other answer is `no-store`.
 */
const LIST_CACHING = 'private, no-cache';

function serialize(categories: readonly Category[]): CategoryList {
  const body = Buffer.from(JSON.stringify(categories));
  // A digest of the bytes, computed once per change: equal lists give equal ETags on every instance.
  const etag = `"${hash('sha256', body, 'base64url').slice(0, 32)}"`;
  const notModifiedHeaders = { etag, 'cache-control': LIST_CACHING };
  return {
    body,
    etag,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...notModifiedHeaders },
    notModifiedHeaders,
    rows: categories,
  };
}

/** The index of the first category with an id above `after`, in a list ascending by id. */
function firstAfter(rows: readonly Category[], after: number): number {
  let low = 0;
  let high = rows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((rows[middle] as Category).id <= after) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Categories: creation and the list. The list is kept as a pre-serialized Buffer and rebuilt only after a
 * write commits (BENCHMARKS.md: serializing 100 categories per request costs about 37 us).
 */
export function createCategoryService(deps: { categories: CategoryRepository }): CategoryService {
  const { categories } = deps;
  let cached: CategoryList | undefined;
  let loading: Promise<CategoryList> | undefined;
  let generation = 0;
  /** Pages of the cached list, by `limit:after`; emptied with it. */
  let pages = new Map<string, CategoryPage>();

  function load(): Promise<CategoryList> {
    const started = generation;
    const promise = categories.list().then((rows) => {
      const list = serialize(rows);
      // A write that committed while this load ran may be missing from it: serve it, but do not keep it.
      if (started === generation) cached = list;
      return list;
    });
    loading = promise;
    promise
      .finally(() => {
        if (loading === promise) loading = undefined;
      })
      .catch(() => {});
    return promise;
  }

  const invalidate = () => {
    generation += 1;
    cached = undefined;
    pages = new Map();
    // Requests arriving after a write must see it: they may not join a load that began before the write.
    loading = undefined;
  };

  const list = () => (cached !== undefined ? Promise.resolve(cached) : (loading ?? load()));
  return {
    current: () => cached,
    list,
    async page(limit, after) {
      const slot = `${limit}:${after}`;
      const kept = pages.get(slot);
      if (kept !== undefined) return kept;
      const keptIn = pages;
      const { rows } = await list();
      const start = firstAfter(rows, after);
      const items = rows.slice(start, start + limit);
      const more = start + limit < rows.length;
      const { rows: _items, ...serialized } = serialize(items);
      const page: CategoryPage = { ...serialized, nextAfter: more ? items.at(-1)?.id : undefined };
      // Kept only if the list did not change meanwhile, and never past the bound.
      if (keptIn === pages && pages.size < KEPT_PAGES) pages.set(slot, page);
      return page;
    },
    invalidate,
  };
}
