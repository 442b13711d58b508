import { firstTests } from '../../checks/test-list.js';
import { handoffLines } from '../../workflow/handoff/index.js';
import { formatCount, formatDuration, formatTime, formatUsd, shortOid } from '../format.js';
import { tallyReadings } from '../check-reading.js';
import { roles, rungs, type CheckView, type ReportModel } from '../model.js';
import { checkResultHtml } from './check-result.js';
import { esc, idFrom } from './escape.js';
import { progressLine } from '../progress.js';
import { estimateRows, strategyWords, switchLines } from '../estimates-text.js';
import { planLine } from '../status-text.js';

/** Where a check's log link points: a file URL in the report, `/logs/N` in the UI; null for no link. */
export type LogHref = (check: CheckView) => string | null;

export function renderHeader(model: ReportModel, options: { live: boolean }): string {
  const { run } = model;
  const liveLine = options.live
    ? `<p class="live" id="live-status" role="status">${run.live ? 'Live: connecting' : 'Live: waiting for the run to write events'}</p>`
    : '';
  return `<header class="top">
<h1>Merge <span class="mono">${esc(run.name)}</span>: ${esc(run.upstream.ref)} into ${esc(run.fork.branch)} <span class="badge s-${esc(run.status)}">${esc(run.status.replace('_', ' '))}</span></h1>
<div class="muted">${run.statusReason ? `${esc(run.statusReason)} · ` : ''}started ${esc(formatTime(run.startedAt))}${run.endedAt ? `, stopped ${esc(formatTime(run.endedAt))}` : ', running'} · next step: ${esc(run.phase)}</div>
${liveLine}
<nav class="toc" aria-label="Sections"><a href="#summary">Summary</a><a href="#grid">Grid</a><a href="#timeline">Decisions (${model.timeline.length})</a><a href="#conflicts">Conflicts (${model.conflicts.length})</a><a href="#checks">Checks (${model.checks.length})</a><a href="#cost">Cost</a></nav>
</header>`;
}

function attemptResult(a: ReportModel['attempts'][number]): string {
  if (a.result === 'failed') return '<span class="bad">check failed</span>';
  if (a.result === 'against_baseline') return '<span class="ok">passed against the baselines</span>';
  if (a.result === 'not_validated') return '<span class="warn">nothing blamed, not validated</span>';
  return a.result === 'passed' ? '<span class="ok">passed</span>' : 'open';
}

/** The checks card: how many ran, failed (blamed), passed against the baselines (a neutral colour, not red). */
function checksCard(model: ReportModel): string {
  const tally = tallyReadings(model.checks.map((c) => c.reading));
  const parts = [
    tally.failed > 0 ? `<span class="bad">${tally.failed} failed</span>` : '0 failed',
    ...(tally.against_baseline > 0
      ? [`<span class="neutral">${tally.against_baseline} passed against the baselines</span>`]
      : []),
    ...(tally.not_validated > 0 ? [`<span class="warn">${tally.not_validated} not validated</span>`] : []),
  ];
  return `${model.checks.length} run, ${parts.join(', ')}`;
}

function validationCard(model: ReportModel): string {
  const v = model.validation;
  if (!v) return '';
  const cls = !v.validated ? 'warn' : v.checks.some((c) => c.reading === 'against_baseline') ? 'neutral' : 'ok';
  return `<div class="card card-wide"><dt>Validation</dt><dd><span class="${cls}">${esc(v.text)}</span></dd></div>`;
}

export function renderSummary(model: ReportModel): string {
  const { run, progress, usage } = model;
  const card = (label: string, value: string): string =>
    `<div class="card"><dt>${esc(label)}</dt><dd>${value}</dd></div>`;
  const byRung = rungs
    .filter((r) => progress.hunksByRung[r] > 0)
    .map((r) => `<span class="rung rung-${r}">${r}</span> ${progress.hunksByRung[r]}`);
  const current = model.currentCheck
    ? card(
        'Current check',
        `${esc(model.currentCheck.name)} on ${esc(model.currentCheck.cell ?? 'a tip')} for ${esc(formatDuration(model.currentCheck.elapsedMs))}`,
      )
    : '';
  const plan = planLine(model);
  const handoff = run.handoff
    ? `<h3>Needs the person</h3><p>${esc(run.handoff.reason)}</p><pre>${esc(handoffLines(run.handoff).join('\n'))}</pre>`
    : '';
  const attempts = model.attempts.length
    ? `<h3>Attempts</h3><div class="table-wrap"><table><thead><tr><th>#</th><th>Strategy</th><th class="num">Resolved</th><th class="num">Checks</th><th>Result</th><th>Recovery</th></tr></thead><tbody>${model.attempts
        .map(
          (a) =>
            `<tr><td>${a.number}</td><td>${esc(a.strategy)}${a.batchSize ? ` (${a.batchSize})` : ''}</td><td class="num">${a.resolutions}</td><td class="num">${a.checksRun}</td><td>${attemptResult(a)}</td><td>${esc(a.recovery ?? '')}</td></tr>`,
        )
        .join('')}</tbody></table></div>`
    : '';
  return `<section id="summary" aria-labelledby="h-summary"><h2 id="h-summary">Summary</h2>
<dl class="cards">
${card('Result', run.resultCommit ? `<code title="${esc(run.resultCommit)}">${esc(shortOid(run.resultCommit))}</code>` : `<span class="s-${esc(run.status)}">${esc(run.status.replace('_', ' '))}</span>`)}
${card('Duration', esc(formatDuration(run.elapsedMs)))}
${card('Cost', `${esc(formatUsd(usage.total.costUsd))}${usage.total.unpricedCalls ? ` <span class="muted">(+${usage.total.unpricedCalls} unpriced)</span>` : ''}`)}
${card('Checks', checksCard(model))}
${card('Conflicts', `${progress.resolved} done, ${progress.left} left`)}
${card('Hunks by rung', byRung.join(' · ') || '<span class="muted">none</span>')}
${card('Strategy', esc(strategyWords(model)))}
${card('Upstream → fork', `<code>${esc(shortOid(run.upstream.oid))}</code> → <code>${esc(shortOid(run.fork.oid))}</code>`)}
${current}
${card('Progress', esc(progressLine(model.outlook)))}
${plan ? card('Planner', esc(plan)) : ''}
${validationCard(model)}
</dl>
${handoff}
${attempts}
${estimatesTable(model)}
</section>`;
}

/** The estimates made at hand-offs against what happened, and each switch of strategy with its reason. */
function estimatesTable(model: ReportModel): string {
  const [head, ...rows] = estimateRows(model);
  const switches = switchLines(model);
  if (rows.length === 0 && switches.length === 0) return '';
  const table =
    rows.length > 0 && head
      ? `<div class="table-wrap"><table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
          .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`)
          .join('')}</tbody></table></div>`
      : '';
  const list = switches.length > 0 ? `<ul>${switches.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>` : '';
  return `<h3>Estimates against what happened</h3>${table}${list}`;
}

export function renderTimeline(model: ReportModel): string {
  if (model.timeline.length === 0) return '<p class="muted">No decisions recorded yet.</p>';
  const link = (id: string): string => `<a href="#conflict-${idFrom(id)}">${esc(id)}</a>`;
  return `<ol class="timeline">${model.timeline
    .map(
      (e) =>
        `<li class="t-${esc(e.kind)}" id="event-${e.seq}"><div class="t-head">${esc(e.title)}${e.times > 1 ? ` <span class="badge">×${e.times}</span>` : ''} <span class="muted">· ${esc(e.by)} · ${esc(formatTime(e.at))}</span></div>${
          e.reasoning ? `<p class="t-why">${esc(e.reasoning)}</p>` : ''
        }${e.conflicts.length ? `<div class="muted">conflicts: ${e.conflicts.map(link).join(', ')}</div>` : ''}</li>`,
    )
    .join('')}</ol>`;
}

/** What the tips (or a cell's own commits) already fail: never blamed on a resolution. */
/** A test's name as the HTML report shows it in a list. */
const codeTest = (test: string): string => `<code>${esc(test)}</code>`;

function renderBaselines(model: ReportModel): string {
  const failing = model.baselines.filter((b) => !b.passed);
  if (failing.length === 0) return '';
  const items = failing.map((b) => {
    const where = b.cell === null ? `the ${b.side} tip` : `${b.side} commit ${b.cell}`;
    const what =
      b.failing === null
        ? 'fails; no test could be named, so its whole outcome is the baseline'
        : `${b.failing.length} failing test(s): ${firstTests(b.failing, 5, codeTest)}`;
    return `<li>${esc(b.check)} on ${esc(where)} (<code>${esc(shortOid(b.commit))}</code>): ${what}${b.ran !== null ? ` (${b.ran} ran)` : ''}</li>`;
  });
  return `<p><b>Baselines</b>: checks that already fail without any resolution; these failures are never blamed on one.</p><ul>${items.join('')}</ul>`;
}

/** Failures a person said were expected at a step of the merge (`continue --accept-failure`). */
function renderAccepted(model: ReportModel): string {
  if (model.accepted.length === 0) return '';
  const items = model.accepted.map((a) => {
    const what =
      a.failing === null ? 'its whole outcome' : `${a.failing.length} test(s): ${firstTests(a.failing, 5, codeTest)}`;
    return `<li>${esc(a.check)} at ${a.conflicts.map((c) => `<a href="#conflict-${idFrom(c)}">${esc(c)}</a>`).join(', ')}: ${what} (<span class="mono">${esc(a.logFile)}</span>)</li>`;
  });
  return `<p><b>Failures accepted by a person</b>: expected at that step of the merge (<code>continue --accept-failure</code>); never blamed on a resolution since.</p><ul>${items.join('')}</ul>`;
}

export function renderChecks(model: ReportModel, logHref: LogHref): string {
  if (model.checks.length === 0) return '<p class="muted">No checks run yet.</p>';
  const rows = model.checks.map((c) => {
    const href = logHref(c);
    const log = href ? `<a href="${esc(href)}">log</a>` : `<span class="mono">${esc(c.logFile)}</span>`;
    const what = c.cell ? `cell <a href="#conflict-${idFrom(c.cell)}">${esc(c.cell)}</a>` : esc(c.target);
    const result = checkResultHtml(c);
    const judged = c.judgement
      ? `<p><b>${c.judgement.blamed ? 'Blamed on the resolutions' : 'Not blamed on the resolutions'}</b>: ${esc(c.judgement.reason)}</p>`
      : '';
    const summary =
      judged +
      (c.summary
        ? `<p><b>${esc(c.summary.error_type)}</b>${c.summary.location ? ` at <code>${esc(c.summary.location)}</code>` : ''}: ${esc(c.summary.root_cause)}</p>`
        : '');
    const excerpt = c.excerpt
      ? `<details${c.success ? '' : ' open'}><summary>${c.success ? 'end of the log' : 'excerpt'}</summary><pre>${esc(c.excerpt)}</pre></details>`
      : '';
    return `<tr id="check-${c.index}"><td class="num">${c.index + 1}</td><td>${esc(c.name)}</td><td>${what}</td><td>${result}</td><td class="num">${esc(formatDuration(c.durationMs))}</td><td class="num">${c.attempt}</td><td>${log}</td></tr>${
      summary || excerpt ? `<tr><td></td><td colspan="6">${summary}${excerpt}</td></tr>` : ''
    }`;
  });
  return `${renderBaselines(model)}${renderAccepted(model)}<div class="table-wrap"><table><thead><tr><th class="num">#</th><th>Check</th><th>On</th><th>Result</th><th class="num">Time</th><th class="num">Attempt</th><th>Log</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

export function renderCost(model: ReportModel): string {
  const row = (label: string, u: ReportModel['usage']['total']): string =>
    `<tr><td>${esc(label)}</td><td class="num">${u.calls}</td><td class="num">${formatCount(u.inputTokens)}</td><td class="num">${formatCount(u.outputTokens)}</td><td class="num">${esc(formatUsd(u.costUsd))}${u.unpricedCalls ? ` <span class="muted">(${u.unpricedCalls} unpriced)</span>` : ''}</td></tr>`;
  return `<div class="table-wrap"><table><thead><tr><th>Role</th><th class="num">Calls</th><th class="num">Input tokens</th><th class="num">Output tokens</th><th class="num">Cost</th></tr></thead><tbody>${roles
    .map((r) => row(r, model.usage[r]))
    .join('')}${row('total', model.usage.total)}</tbody></table></div>`;
}
