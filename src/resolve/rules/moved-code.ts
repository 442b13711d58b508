import { splitLinesKeep } from '../parse/lines.js';

function normalizedLines(text: string): string[] {
  return splitLinesKeep(text)
    .map((l) => l.trim().replace(/\s+/g, ' '))
    .filter((l) => l !== '');
}

/**
 * True when `added` holds a run of `minRun` or more consecutive non-blank lines
 * (compared ignoring whitespace) that also appears, consecutively, in
 * `outside` — the rest of the file. A side that "adds" lines the file
 * already has elsewhere most likely moved them: keeping them here would
 * duplicate them.
 */
export function repeatsLinesOutside(added: string, outside: string, minRun = 3): boolean {
  const a = normalizedLines(added);
  if (a.length < minRun) return false;
  const seen = new Set<string>();
  const rest = normalizedLines(outside);
  for (let i = 0; i + minRun <= rest.length; i++) seen.add(rest.slice(i, i + minRun).join('\n'));
  for (let i = 0; i + minRun <= a.length; i++) if (seen.has(a.slice(i, i + minRun).join('\n'))) return true;
  return false;
}
