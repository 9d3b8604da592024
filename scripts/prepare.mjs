// `prepare`: the build, which npm runs after `npm ci` and `npm install` in the checkout (DESIGN.md: `npm ci`
// builds everything, and then `npx petstore …` works).
//
// `npx petstore …` in the checkout gets here too. npx runs a project's own command by installing the project
// into its cache (~/.npm/_npx), as a link to this very directory, and npm runs a directory's `prepare` on
// such an install: the whole build again, minutes before the command's first line. The command npx then runs
// is this checkout's build, so under npx (`npm_command` is `exec`) a build that is there is kept as it is.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const { bin } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const built = Object.values(bin).every((file) => existsSync(path.join(ROOT, file)));
if (process.env.npm_command === 'exec' && built) process.exit(0);
const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
process.exit(build.status ?? 1);
