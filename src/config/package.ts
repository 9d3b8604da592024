import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory of this package, where its package.json is, found from this module's own place: the same
 * whatever directory a command is run from (`npm start` runs in it, `npx petstore` wherever it is typed).
 */
export function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}

/** A file of this package, such as CHANGELOG.md, as text; undefined when it is not there. */
export function packageFile(name: string): string | undefined {
  return packageBytes(name)?.toString('utf8');
}

/** A file of this package, such as `docs/console-domains.png`, as bytes; undefined when it is not there. */
export function packageBytes(name: string): Buffer | undefined {
  const file = path.join(packageRoot(), name);
  return existsSync(file) ? readFileSync(file) : undefined;
}

/** The version of this package, as `petstore --version` prints it. */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}
