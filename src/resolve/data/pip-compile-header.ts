import { posix } from 'node:path';
import { shellWord } from '../../util/safe-print.js';

/** Source files pip-compile reads a project's metadata from; their default output is `requirements.txt` beside them. */
const METADATA_FILES = new Set(['setup.py', 'setup.cfg', 'pyproject.toml']);

/**
 * The command pip-compile's header names (`#    pip-compile --output-file=requirements/dev.txt
 * requirements/dev.in`), for a person to run again from the repository's root. pip-compile records
 * the command as it was run, its paths relative to where it was run: that directory is where the
 * file's path ends with the output the command names (or derives from its one source file), and
 * the command is printed to run there (`(cd requirements && pip-compile build.in)`), so the header
 * and its `# via -r` lines come out the same. Null when the header holds shell syntax, names a path
 * outside the repository, or names an output that is not this file (then where it ran is unknown).
 */
export function pipCompileCommand(head: string, path: string): string | null {
  const m = /^#\s+(pip-compile\b[^\n]*)$/m.exec(head);
  if (!m) return null;
  // Printed for a person to run, read from upstream's file: plain words only (no shell syntax).
  const words = (m[1] as string).trim().split(/\s+/);
  if (!words.every((w) => /^[\w./=:,+@-]+$/.test(w))) return null;
  const out: string[] = [];
  const sources: string[] = [];
  let output: string | null = null;
  for (let k = 0; k < words.length; k++) {
    const word = words[k] as string;
    const named = /^(?:--output-file=|-o)(.+)$/.exec(word);
    if (named || word === '--output-file' || word === '-o') {
      output = named ? (named[1] as string) : (words[++k] ?? '');
      out.push(`--output-file=${output}`);
      continue;
    }
    if (k > 0 && !word.startsWith('-')) sources.push(word);
    out.push(word);
  }
  const dir = ranIn(path, output ?? defaultOutput(sources));
  if (dir === null) return null;
  // Every path it names (the output, an input, a constraints file) must stay in the repository.
  const paths = out
    .slice(1)
    .flatMap((w) => (!w.startsWith('-') ? [w] : w.includes('=') ? [w.slice(w.indexOf('=') + 1)] : []));
  if (!paths.every((p) => inRepository(dir, p))) return null;
  const command = out.map(shellWord).join(' ');
  // A subshell, so the `git add -- <path>` printed after it still runs from the root.
  return dir === '' ? command : `(cd ${shellWord(dir)} && ${command})`;
}

/** The output file pip-compile writes when none is named, relative to where it ran (as pip-tools derives it). */
function defaultOutput(sources: readonly string[]): string | null {
  if (sources.length === 0) return 'requirements.txt';
  if (sources.length > 1) return null;
  const source = sources[0] as string;
  if (METADATA_FILES.has(posix.basename(source))) return posix.join(posix.dirname(source), 'requirements.txt');
  const dot = source.lastIndexOf('.');
  return `${dot > source.lastIndexOf('/') ? source.slice(0, dot) : source}.txt`;
}

/** The directory (`''` for the root) from which `output` names the file at `path`, or null when it does not. */
function ranIn(path: string, output: string | null): string | null {
  if (output === null || output.startsWith('/')) return null;
  const relative = posix.normalize(output);
  if (relative.startsWith('../') || relative === '..') return null;
  if (relative === path) return '';
  return path.endsWith(`/${relative}`) ? path.slice(0, -relative.length - 1) : null;
}

/** Whether a path from a file's text, relative to directory `dir` of the repository, stays in it. */
function inRepository(dir: string, path: string): boolean {
  if (path === '' || path.startsWith('/')) return false;
  const joined = posix.normalize(posix.join(dir === '' ? '.' : dir, path));
  return joined !== '..' && !joined.startsWith('../');
}
