import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The checkout: dist/test/architecture/ is three levels below it. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Import {
  /** The imported file, relative to the checkout (`src/keys/index.ts`). */
  target: string;
  /** Whether only types are imported, which leaves no trace in the JavaScript. */
  typeOnly: boolean;
}

/** The client package's sources (a workspace of its own, published without the server). */
const CLIENT = path.join('packages', 'client', 'src');

/** Every TypeScript file of src, test, bench and the client package, relative to the checkout. */
function sourceFiles(): string[] {
  return ['src', 'test', 'bench', CLIENT].flatMap((folder) =>
    readdirSync(path.join(ROOT, folder), { recursive: true })
      .map((file) => path.join(folder, String(file)))
      .filter((file) => file.endsWith('.ts')),
  );
}

/** The import and re-export statements of a file, read by the compiler's parser, with what each names. */
function statementsOf(
  file: string,
): { statement: ts.ImportDeclaration | ts.ExportDeclaration; text: string }[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(path.join(ROOT, file), 'utf8'),
    ts.ScriptTarget.Latest,
  );
  return source.statements.flatMap((statement) => {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) return [];
    const specifier = statement.moduleSpecifier;
    return specifier !== undefined && ts.isStringLiteral(specifier)
      ? [{ statement, text: specifier.text }]
      : [];
  });
}

/** The relative imports and re-exports of a file. */
function importsOf(file: string): Import[] {
  const found: Import[] = [];
  for (const { statement, text } of statementsOf(file)) {
    if (!text.startsWith('.')) continue;
    const target = path.join(path.dirname(file), text).replace(/\.js$/, '.ts');
    assert.ok(existsSync(path.join(ROOT, target)), `${file} imports ${text}, which does not exist`);
    found.push({ target, typeOnly: isTypeOnly(statement) });
  }
  return found;
}

function isTypeOnly(statement: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(statement)) {
    if (statement.isTypeOnly) return true;
    const clause = statement.exportClause;
    return (
      clause !== undefined &&
      ts.isNamedExports(clause) &&
      clause.elements.every((element) => element.isTypeOnly)
    );
  }
  const clause = statement.importClause;
  if (clause === undefined) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

/** The capability a file of src belongs to (`src/keys/format.ts` gives `keys`); undefined outside src. */
function capabilityOf(file: string): string | undefined {
  const [top, folder] = file.split(path.sep);
  return top === 'src' && folder !== undefined && !folder.endsWith('.ts') ? folder : undefined;
}

/** The packages a file imports by name (`standardwebhooks`, `node:fs`), type-only imports included. */
function packagesOf(file: string): string[] {
  return statementsOf(file)
    .map(({ text }) => text)
    .filter((text) => !text.startsWith('.'));
}

const FILES = sourceFiles();
const GRAPH = new Map(FILES.map((file) => [file, importsOf(file)]));
const PACKAGES = new Map(FILES.map((file) => [file, packagesOf(file)]));

const inClient = (file: string) => file.startsWith(`${CLIENT}${path.sep}`);

test('no import cycle, type-only imports included', () => {
  // Tarjan's strongly connected components: any component of more than one file is a cycle.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    for (const { target } of GRAPH.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (stack.includes(target)) {
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        component.push(member);
      } while (member !== file);
      const selfImport = GRAPH.get(file)?.some(({ target }) => target === file) ?? false;
      if (component.length > 1 || selfImport) cycles.push(component.sort());
    }
  };
  for (const file of GRAPH.keys()) if (!index.has(file)) visit(file);
  assert.deepEqual(cycles, []);
});

test("another folder's files are reached only through its index.ts", () => {
  const bypasses: string[] = [];
  for (const [file, imports] of GRAPH) {
    for (const { target } of imports) {
      const capability = capabilityOf(target);
      if (capability === undefined || capabilityOf(file) === capability) continue;
      // A capability's component tests, in the test folder of its name, may reach its internals.
      if (file.split(path.sep).slice(0, 2).join('/') === `test/${capability}`) continue;
      if (target !== path.join('src', capability, 'index.ts')) bypasses.push(`${file} -> ${target}`);
    }
  }
  assert.deepEqual(bypasses, []);
});

test('no capability imports config; config imports only the types of the options capabilities declare', () => {
  // The composition roots build the configuration and hand each capability its own options.
  const roots = new Set(['app', 'cli', 'config']);
  const wrong: string[] = [];
  for (const [file, imports] of GRAPH) {
    const capability = capabilityOf(file);
    if (capability === undefined) continue;
    for (const { target, typeOnly } of imports) {
      const imported = capabilityOf(target);
      if (imported === 'config' && !roots.has(capability)) wrong.push(`${file} imports config`);
      if (capability === 'config' && imported !== undefined && imported !== 'config' && !typeOnly) {
        wrong.push(`${file} imports ${target} at run time`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

test('the client package imports only its own files and its dependencies; others reach it by its name', () => {
  const { dependencies } = JSON.parse(
    readFileSync(path.join(ROOT, 'packages', 'client', 'package.json'), 'utf8'),
  ) as { dependencies: Record<string, string> };
  const wrong: string[] = [];
  for (const [file, imports] of GRAPH) {
    for (const { target } of imports) {
      // Its installed copy has no server beside it: not a type of the contract either (those are generated).
      if (inClient(file) && !inClient(target)) wrong.push(`${file} -> ${target}`);
      // The client's component tests, test/client, may reach its internals; the rest import the package.
      const ownTests = file.split(path.sep).slice(0, 2).join('/') === 'test/client';
      if (!inClient(file) && inClient(target) && !ownTests) wrong.push(`${file} -> ${target}`);
    }
    const named = PACKAGES.get(file) ?? [];
    if (inClient(file))
      for (const name of named) if (!(name in dependencies)) wrong.push(`${file} imports ${name}`);
    // The server never needs its own client: the package depends on the contract, not the other way round.
    if (capabilityOf(file) !== undefined)
      for (const name of named)
        if (name.startsWith('@petstore-api/client')) wrong.push(`${file} imports ${name}`);
  }
  assert.deepEqual(wrong, []);
});

/** The browser kit: what the console and the reference both use, their own code apart. */
const KIT = 'kit';

test('the browser kit imports neither the console nor the reference', () => {
  const kitFiles = readdirSync(path.join(ROOT, KIT), { recursive: true })
    .map((file) => path.join(KIT, String(file)))
    .filter((file) => /\.tsx?$/.test(file));
  assert.ok(kitFiles.length > 0, 'kit/ has no TypeScript files');
  const wrong: string[] = [];
  for (const file of kitFiles) {
    for (const { text } of statementsOf(file)) {
      if (!text.startsWith('.')) continue;
      const [top] = path.join(path.dirname(file), text).split(path.sep);
      if (top === 'console' || top === 'reference') wrong.push(`${file} -> ${text}`);
    }
  }
  assert.deepEqual(wrong, []);
});
