import type { DropFileView, DropsView } from '../model.js';
import { esc } from './escape.js';

/** Files listed per side and lines per file: the section stays small whatever the merge (the record has all). */
const FILES_PER_SIDE = 50;
const LINES_PER_FILE = 3;

function fileItem(f: DropFileView): string {
  const reason = f.reason === null ? ' <b>no recorded reason</b>' : ` <span class="muted">(${esc(f.reason)})</span>`;
  const lines = f.lines
    .slice(0, LINES_PER_FILE)
    .map((l) => `<li>${esc(l.kind)} ${l.line}: <code>${esc(l.text)}</code></li>`)
    .join('');
  const where = f.cell ? `cell ${esc(f.cell)}, ` : '';
  return `<li><code>${esc(f.path)}</code>: ${esc(f.words)} [${where}${esc(f.decidedBy)}]${reason}${lines ? `<ul>${lines}</ul>` : ''}</li>`;
}

/** "What the merge dropped", per side, as a compact list (text from upstream is escaped). */
export function renderDrops(drops: DropsView): string {
  if (drops.fork.length + drops.upstream.length === 0)
    return `<p class="muted">Nothing: ${drops.source === 'final' ? 'the merge keeps' : 'the resolutions so far keep'} every line of both sides' changes.</p>`;
  const side = (title: string, files: DropFileView[]): string =>
    files.length === 0
      ? ''
      : `<details open><summary>${title} (${files.length} file(s))</summary><ul>${files.slice(0, FILES_PER_SIDE).map(fileItem).join('')}</ul>${files.length > FILES_PER_SIDE ? `<p class="muted">… and ${files.length - FILES_PER_SIDE} more: see the merge record.</p>` : ''}</details>`;
  const flagged = drops.unreasoned > 0 ? `<p>${drops.unreasoned} file(s) with no recorded reason.</p>` : '';
  return `${flagged}${side('The fork', drops.fork)}${side('Upstream', drops.upstream)}`;
}
