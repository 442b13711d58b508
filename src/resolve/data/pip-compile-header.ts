import { shellWord } from '../../util/safe-print.js';

/**
 * The command pip-compile's header names (`#    pip-compile --output-file=requirements/dev.txt
 * requirements/dev.in`), for a person to run again: each word quoted for the shell, the output
 * file in the repository (this file's own `path` when the header names one outside it), and null
 * when the header holds shell syntax or names another path outside the repository.
 */
export function pipCompileCommand(head: string, path: string): string | null {
  const m = /^#\s+(pip-compile\b[^\n]*)$/m.exec(head);
  if (!m) return null;
  // Printed for a person to run, read from upstream's file: plain words only (no shell syntax).
  const words = (m[1] as string).trim().split(/\s+/);
  if (!words.every((w) => /^[\w./=:,+@-]+$/.test(w))) return null;
  const out: string[] = [];
  for (let k = 0; k < words.length; k++) {
    const word = words[k] as string;
    const output = /^(?:--output-file=|-o)(.+)$/.exec(word);
    // Where it writes: a path in the repository, else this file's own (never `/root/.bashrc`).
    if (output || word === '--output-file' || word === '-o') {
      const target = output ? (output[1] as string) : (words[++k] ?? '');
      out.push(`--output-file=${inRepository(target) ? target : path}`);
      continue;
    }
    // Any other path it names (an input, a constraints file) must be in the repository too.
    if (!inRepository(word.startsWith('-') ? word.slice(word.indexOf('=') + 1) : word)) return null;
    out.push(word);
  }
  return out.map(shellWord).join(' ');
}

/** Whether a path from a file's text names a place in the repository: relative, never above it. */
function inRepository(path: string): boolean {
  return path !== '' && !path.startsWith('/') && !path.split('/').includes('..');
}
