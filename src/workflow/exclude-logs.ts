import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Keep splintercat's logs out of `git status` (they live in the working tree by default). */
export function excludeLogs(gitDir: string): void {
  mkdirSync(join(gitDir, 'info'), { recursive: true });
  const exclude = join(gitDir, 'info', 'exclude');
  const text = existsSync(exclude) ? readFileSync(exclude, 'utf8') : '';
  if (!text.split('\n').includes('.splintercat/'))
    appendFileSync(exclude, `${text === '' || text.endsWith('\n') ? '' : '\n'}.splintercat/\n`);
}
