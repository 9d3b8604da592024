import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The checkout: dist/test/architecture/ is three levels below it. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SRC = path.join(ROOT, 'src');

/**
 * The Layout of docs/development.md: each line `- \`folder\`: what it holds. Imports \`a\`, \`b\`.`, in the
 * order of the floors, lowest first. A line may name several folders (`categories`, `pets`, `orders`) and give
 * each its own imports (`\`pets\` imports …`); "Imports nothing" and "every folder but \`cli\`" are read too.
 */
function documentedLayout(): { order: string[]; imports: Map<string, Set<string>> } {
  const guide = readFileSync(path.join(ROOT, 'docs', 'development.md'), 'utf8');
  const section = /^## Layout\n([\s\S]*?)^## /m.exec(guide)?.[1] ?? '';
  // A list item with its continuation lines, joined.
  const items = section
    .split(/\n(?=- )/)
    .filter((item) => item.startsWith('- `'))
    .map((item) => item.replace(/\s*\n\s*/g, ' '));
  const order: string[] = [];
  const imports = new Map<string, Set<string>>();
  const names = (text: string) => [...text.matchAll(/`([a-z-]+)`/g)].map((match) => match[1] as string);
  for (const item of items) {
    const head = /^- ((?:`[a-z-]+`(?:, )?)+):/.exec(item);
    if (head === null) continue;
    const folders = names(head[1] as string);
    order.push(...folders);
    for (const folder of folders) {
      const own = new RegExp(`\`${folder}\` imports ([^;.]*)`).exec(item);
      const shared = /Imports ([^.]*)\./.exec(item);
      const text = (own ?? shared)?.[1] ?? '';
      imports.set(folder, new Set(text.startsWith('every folder but') ? [] : names(text)));
      if (text.startsWith('every folder but')) imports.set(folder, new Set(['*', ...names(text)]));
    }
  }
  return { order, imports };
}

/** The other folders of src that a folder's files import (types included), read by the compiler's parser. */
function actualImports(folder: string): Set<string> {
  const found = new Set<string>();
  const files = readdirSync(path.join(SRC, folder), { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts'));
  for (const file of files) {
    const full = path.join(SRC, folder, file);
    const source = ts.createSourceFile(full, readFileSync(full, 'utf8'), ts.ScriptTarget.Latest);
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
      const specifier = statement.moduleSpecifier;
      if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.'))
        continue;
      const target = path.relative(SRC, path.join(path.dirname(full), specifier.text));
      const [top] = target.split(path.sep);
      if (top !== undefined && top !== folder && !top.endsWith('.js')) found.add(top);
    }
  }
  return found;
}

const FOLDERS = readdirSync(SRC, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const LAYOUT = documentedLayout();

test('the Layout names every folder of src, once, and nothing that is not one', () => {
  assert.deepEqual([...LAYOUT.order].sort(), FOLDERS);
});

test('each folder imports only the folders its line names', () => {
  const wrong: string[] = [];
  for (const folder of FOLDERS) {
    const allowed = LAYOUT.imports.get(folder) ?? new Set();
    for (const imported of actualImports(folder)) {
      const everyBut = allowed.has('*');
      if (everyBut ? allowed.has(imported) : !allowed.has(imported))
        wrong.push(`${folder} imports ${imported}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('the folders a line names stand lower in the Layout: no cycle, nothing reaches up', () => {
  const floor = new Map(LAYOUT.order.map((folder, index) => [folder, index]));
  const upward: string[] = [];
  for (const [folder, allowed] of LAYOUT.imports) {
    const mine = floor.get(folder) as number;
    const named = allowed.has('*') ? [] : [...allowed];
    for (const imported of named) {
      const theirs = floor.get(imported);
      if (theirs === undefined) upward.push(`${folder}'s line names ${imported}, which is no folder`);
      else if (theirs >= mine) upward.push(`${folder} imports ${imported}, which stands above it`);
    }
  }
  assert.deepEqual(upward, []);
});

test('the Layout reads as intended: a folder that imports nothing says so', () => {
  // Held so that a line whose "Imports" the reader above cannot parse is not silently taken as "nothing".
  const section = readFileSync(path.join(ROOT, 'docs', 'development.md'), 'utf8');
  for (const [folder, allowed] of LAYOUT.imports) {
    if (allowed.size > 0) continue;
    assert.match(section, new RegExp(`- \`${folder}\`: [^\\n]*(\\n  [^\\n]*)*Imports nothing\\.`), folder);
  }
});
