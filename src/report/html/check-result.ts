import { readingText } from '../check-reading.js';
import type { CheckView } from '../model.js';
import { esc } from './escape.js';

/** A check's result as the report shows it: red only for a failure blamed on the resolutions, neutral for one the baselines have. */
export function checkResultHtml(c: CheckView): string {
  if (c.success) return '<span class="ok">passed</span>';
  if (c.reading === 'failed')
    return `<span class="bad">${c.timedOut ? 'timed out' : `failed (exit ${c.exitCode ?? '?'})`}</span>`;
  const cls = c.reading === 'not_validated' ? 'warn' : 'neutral';
  return `<span class="${cls}">${esc(readingText(c.reading, c.judgement?.inherited.length ?? 0))}</span>`;
}
