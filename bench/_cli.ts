/** The built CLI, as a user runs it: `node dist/cli/main.js`, rebuilt first when a source file is newer. */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Absolute path of the built CLI entry point. */
export const cliMain = join(root, 'dist', 'cli', 'main.js');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Run `npm run build` unless dist/cli/main.js is newer than every file of src/. */
export function ensureBuilt(): void {
  let built = 0;
  try {
    built = statSync(cliMain).mtimeMs;
  } catch {
    // not built yet
  }
  if (built >= newestMtime(join(root, 'src'))) return;
  process.stdout.write('building dist/ (npm run build)...\n');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}
