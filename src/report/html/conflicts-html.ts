import { formatCount, formatUsd, shortOid } from '../format.js';
import type { CheckView, ConflictView, TranscriptView } from '../model.js';
import { checkResultHtml } from './check-result.js';
import { esc, idFrom } from './escape.js';

/** Conflicts shown open by default when there are at most this many (the rest are one click away). */
const OPEN_BY_DEFAULT = 12;
/**
 * Characters of hunks and diffs the whole page shows, shared out among the conflicts (each gets at
 * least MIN_SHARE): the page of a sync with hundreds of conflicts stays a few megabytes, and what
 * is cut short says where the rest is.
 */
const PAGE_DETAIL_BUDGET = 1_200_000;
const MIN_SHARE = 2_000;

/** The first `limit` characters of `text`, at a line's end, and how many lines were left out. */
function cutLines(text: string, limit: number): { text: string; more: number } {
  if (text.length <= limit) return { text, more: 0 };
  const end = Math.max(0, text.lastIndexOf('\n', limit) + 1);
  const kept = text.slice(0, end);
  return { text: kept, more: text.slice(end).split('\n').filter(Boolean).length };
}

/** A unified diff with each line classed (added, removed, hunk header, file header), cut at `limit` characters. */
function renderDiff(whole: string, limit: number): string {
  const { text: diff, more } = cutLines(whole, limit);
  const lines = diff.replace(/\n$/, '').split('\n');
  const out = lines.map((line) => {
    const cls = /^(diff --git|index |--- |\+\+\+ |new file|deleted file|similarity|rename )/.test(line)
      ? 'd-meta'
      : line.startsWith('@@')
        ? 'd-hunk'
        : line.startsWith('+')
          ? 'd-add'
          : line.startsWith('-')
            ? 'd-del'
            : 'd-ctx';
    return `<span class="${cls}">${esc(line) || ' '}</span>`;
  });
  const rest =
    more > 0 ? `<p class="muted">${more} more line(s) of this diff are not shown here: see the commit.</p>` : '';
  return `<pre class="diff" tabindex="0">${out.join('')}</pre>${rest}`;
}

/** A hunk side cut to `limit` characters, saying so. */
function side(text: string, limit: number): string {
  const { text: kept, more } = cutLines(text, limit);
  return more > 0 ? `${esc(kept)}<span class="muted">… ${more} more line(s)</span>` : esc(text);
}

function commitLine(label: string, c: ConflictView['forkCommit']): string {
  if (!c) return `<li>${esc(label)}: <span class="muted">not known</span></li>`;
  return `<li>${esc(label)}: <code>${esc(shortOid(c.oid))}</code> ${esc(c.subject)}</li>`;
}

function renderTranscript(t: TranscriptView): string {
  const outcome = t.ok
    ? '<span class="ok">resolved the file</span>'
    : `<span class="bad">gave up${t.failure ? `: ${esc(t.failure.reason)} — ${esc(t.failure.message)}` : ''}</span>`;
  const reasoning = t.reasoning.length
    ? `<ol>${t.reasoning.map((r) => `<li><p class="t-why">${esc(r)}</p></li>`).join('')}</ol>`
    : '<p class="muted">No reasoning text was recorded.</p>';
  const calls = t.toolCalls.length
    ? `<details><summary>${t.toolCalls.length} tool call(s)</summary><div class="table-wrap"><table><thead><tr><th>Turn</th><th>Tool</th><th>Input</th><th>Result</th></tr></thead><tbody>${t.toolCalls
        .map(
          (c) =>
            `<tr><td class="num">${c.turn ?? ''}</td><td><code>${esc(c.tool)}</code>${c.ok ? '' : ' <span class="bad">(error)</span>'}</td><td><pre>${esc(c.input)}</pre></td><td><pre>${esc(c.output)}</pre></td></tr>`,
        )
        .join('')}</tbody></table></div></details>`
    : '';
  return `<div class="transcript"><h4>Resolver on <code>${esc(t.path)}</code>${t.modelId ? ` (${esc(t.modelId)})` : ''}: ${outcome}, ${t.turns} turn(s)</h4>${reasoning}${calls}</div>`;
}

function renderFile(c: ConflictView, f: ConflictView['files'][number], limit: number): string {
  const rungs = f.hunks
    .map(
      (h) =>
        `hunk ${h.index}: ${h.rung ? `<span class="rung rung-${esc(h.rung)}">${esc(h.rung)}</span>${h.by ? ` (${esc(h.by)})` : ''}` : `<span class="warn">${esc(h.status)}</span>`}`,
    )
    .join('; ');
  const hunks = f.conflictHunks
    .map(
      (h) => `<div class="hunk"><div class="muted">Hunk ${h.index}</div><div class="sides">
<div><h4>ours: cell ${c.i1}-${c.i2 - 1} (fork side)</h4><pre>${side(h.ours, limit)}</pre></div>
<div><h4>base</h4><pre>${h.base === null ? '<span class="muted">(no base section)</span>' : side(h.base, limit)}</pre></div>
<div><h4>theirs: cell ${c.i1 - 1}-${c.i2} (upstream side)</h4><pre>${side(h.theirs, limit)}</pre></div></div></div>`,
    )
    .join('');
  return `<h4 class="mono">${esc(f.path)} <span class="muted">(${esc(f.kind)})</span></h4><p>${rungs || '<span class="muted">file-level decision</span>'}</p>${hunks}`;
}

function renderConflict(c: ConflictView, checks: readonly CheckView[], open: boolean, share: number): string {
  const rung = c.rung
    ? `<span class="rung rung-${esc(c.rung)}">${esc(c.rung)}</span>`
    : `<span class="warn">${esc(c.status.replace('_', ' '))}</span>`;
  // Half the conflict's share for its diff, the other half for the sides of its hunks.
  const sides = Math.max(
    1,
    c.files.reduce((n, f) => n + f.conflictHunks.length * 3, 0),
  );
  const files = c.files.map((f) => renderFile(c, f, Math.max(200, Math.floor(share / 2 / sides)))).join('');
  const resolution = c.resolution
    ? `<h4>Resolution <code>${esc(shortOid(c.resolution.commit))}</code> (the conflicted merge → the recorded tree)</h4>${
        c.resolution.diff
          ? renderDiff(c.resolution.diff, Math.floor(share / 2))
          : '<p class="muted">The diff is not available.</p>'
      }${c.resolution.diffTruncated ? '<p class="muted">The diff is cut short here; see the commit for the rest.</p>' : ''}`
    : '<p class="warn">Not resolved yet.</p>';
  const cellChecks = c.checks
    .map((i) => checks[i])
    .filter((k): k is CheckView => k !== undefined)
    .map(
      (k) =>
        `<li>${esc(k.name)} (attempt ${k.attempt}): ${checkResultHtml(k)} — <a href="#check-${k.index}">check ${k.index + 1}</a></li>`,
    )
    .join('');
  const usage = c.usage.calls
    ? `<p class="muted">Model usage: ${c.usage.calls} call(s), ${formatCount(c.usage.inputTokens)} + ${formatCount(c.usage.outputTokens)} tokens, ${formatUsd(c.usage.costUsd)}</p>`
    : '';
  return `<details class="conflict" id="conflict-${idFrom(c.id)}"${open ? ' open' : ''}>
<summary>Conflict ${esc(c.id)} — ${rung} · ${c.files.length} file(s)${c.attempts > 1 ? ` · ${c.attempts} attempts` : ''}${c.blame ? ' · <span class="bad">blamed</span>' : ''}</summary>
<ul>${commitLine(`fork commit ${c.i1}`, c.forkCommit)}${commitLine(`upstream commit ${c.i2}`, c.upstreamCommit)}</ul>
${c.blame ? `<p class="bad">Blamed: ${esc(c.blame)}</p>` : ''}${c.outsideEdits.length > 0 ? `<p>Edited by the person beyond the conflict: ${c.outsideEdits.map((p) => `<code>${esc(p)}</code>`).join(', ')}</p>` : ''}${c.note ? `<p class="muted">${esc(c.note)}</p>` : ''}
${files}
${resolution}
${c.transcripts.map(renderTranscript).join('')}
${usage}
${cellChecks ? `<h4>Checks on this cell</h4><ul>${cellChecks}</ul>` : ''}
</details>`;
}

/** Every conflict: its two commits, hunks (ours/base/theirs), resolution diff, rungs, the resolver's reasoning and tool calls, its checks. */
export function renderConflicts(conflicts: readonly ConflictView[], checks: readonly CheckView[]): string {
  if (conflicts.length === 0) return '<p class="muted">No conflicts: everything merged automatically.</p>';
  const open = conflicts.length <= OPEN_BY_DEFAULT;
  const share = Math.max(MIN_SHARE, Math.floor(PAGE_DETAIL_BUDGET / conflicts.length));
  return conflicts.map((c) => renderConflict(c, checks, open, share)).join('\n');
}
