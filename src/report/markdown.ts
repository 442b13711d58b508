import { dropsMarkdown } from './drops-markdown.js';
import { formatCount, formatDuration, formatTime, formatUsd, shortOid } from './format.js';
import { roles, rungs, type ConflictView, type ReportModel } from './model.js';
import { readingText, tallyText } from './check-reading.js';
import { handoffLines } from '../workflow/handoff/index.js';
import { progressLine } from './progress.js';
import { estimateRows, strategyWords, switchLines } from './estimates-text.js';
import { planLine } from './status-text.js';
import { markedDiagram } from './status-text.js';
import { firstTests } from '../checks/test-list.js';
import { printableText } from '../util/safe-print.js';

/** GitHub refuses comments over 65,536 characters; stay under it with room for an edit. */
const BUDGET = 60_000;
const DIFF_LIMIT = 4_000;
const REASONING_LIMIT = 1_500;

/**
 * Inline text from the repository or a model: Markdown and HTML specials escaped, so a
 * commit message cannot inject links, images or tags into a pull request.
 */
export function mdText(value: string): string {
  return value
    .replace(/\r?\n/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|~])/g, '\\$1')
    .replace(/^([#>+-])/, '\\$1');
}

/** Text inside an HTML element of the Markdown (a `<summary>`): HTML-escaped only. */
function htmlText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A code span that holds any text (the fence is longer than any backtick run inside). */
export function mdCode(value: string): string {
  const text = value.replace(/\r?\n/g, ' ');
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || text === '' ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A fenced block that holds any text. */
export function mdFenced(value: string, lang = ''): string {
  const longest = Math.max(2, ...(value.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${value.replace(/\n$/, '')}\n${fence}`;
}

function clip(text: string, limit: number): string {
  return text.length <= limit
    ? text
    : `${text.slice(0, text.lastIndexOf('\n', limit) > 0 ? text.lastIndexOf('\n', limit) : limit)}\n… (cut; see the HTML report)`;
}

function conflictMd(c: ConflictView): string {
  const rung = c.rung ?? c.status.replace('_', ' ');
  const by = [...new Set(c.files.flatMap((f) => f.hunks.map((h) => h.by)).filter((b): b is string => b !== null))];
  const lines = [
    `<details><summary>Conflict ${c.id} — ${htmlText(rung)}${by.length ? ` (${htmlText(by.join(', '))})` : ''}, ${c.files.length} file(s)${c.attempts > 1 ? `, ${c.attempts} attempts` : ''}</summary>`,
    '',
    `- fork commit ${c.i1}: ${c.forkCommit ? `${mdCode(shortOid(c.forkCommit.oid))} ${mdText(c.forkCommit.subject)}` : 'not known'}`,
    `- upstream commit ${c.i2}: ${c.upstreamCommit ? `${mdCode(shortOid(c.upstreamCommit.oid))} ${mdText(c.upstreamCommit.subject)}` : 'not known'}`,
    ...c.files.map(
      (f) =>
        `- ${mdCode(f.path)}: ${f.hunks.map((h) => `hunk ${h.index} ${h.rung ? `${h.rung}${h.by ? ` (${mdText(h.by)})` : ''}` : h.status.replace('_', ' ')}`).join('; ') || 'file-level decision'}`,
    ),
  ];
  if (c.outsideEdits.length > 0)
    lines.push(`- edited by the person beyond the conflict: ${c.outsideEdits.map((p) => mdCode(p)).join(', ')}`);
  if (c.blame) lines.push(`- **blamed**: ${mdText(c.blame)}`);
  if (c.resolution?.diff) lines.push('', mdFenced(clip(c.resolution.diff, DIFF_LIMIT), 'diff'));
  for (const t of c.transcripts) {
    lines.push(
      '',
      `**Resolver** on ${mdCode(t.path)}${t.modelId ? ` (${mdText(t.modelId)})` : ''}: ${t.ok ? 'resolved' : `gave up${t.failure ? ` (${mdText(t.failure.reason)})` : ''}`}, ${t.turns} turn(s)`,
    );
    for (const r of t.reasoning)
      lines.push(
        '',
        ...clip(r, REASONING_LIMIT)
          .split('\n')
          .map((l) => `> ${mdText(l)}`),
      );
    if (t.toolCalls.length) lines.push('', `Tool calls: ${t.toolCalls.map((k) => mdCode(k.tool)).join(', ')}`);
  }
  lines.push('', '</details>');
  return lines.join('\n');
}

function summaryRows(model: ReportModel): string[] {
  const { run, progress, usage } = model;
  return [
    `## splintercat: ${mdText(run.upstream.ref)} merged into ${mdText(run.fork.branch)} — ${run.status.replace('_', ' ')}`,
    '',
    '| | |',
    '|---|---|',
    `| Result | ${run.resultCommit ? mdCode(run.resultCommit) : mdText(run.statusReason ?? run.status)} |`,
    `| Upstream → fork | ${mdCode(shortOid(run.upstream.oid))} → ${mdCode(shortOid(run.fork.oid))} |`,
    `| Duration | ${formatDuration(run.elapsedMs)} (started ${formatTime(run.startedAt)}) |`,
    `| Cost | ${formatUsd(usage.total.costUsd)} (${roles.map((r) => `${r} ${formatUsd(usage[r].costUsd)}`).join(', ')}) |`,
    `| Checks | ${model.checks.length} run: ${tallyText(model.checks.map((c) => c.reading))} |`,
    ...(model.validation ? [`| Validation | ${mdText(model.validation.text)} |`] : []),
    `| Conflicts | ${progress.resolved} resolved, ${progress.left} left; hunks by rung: ${rungs.map((r) => `${r} ${progress.hunksByRung[r]}`).join(', ')} |`,
    `| Strategy | ${mdText(strategyWords(model))} |`,
    ...progressRows(model),
    `| Attempts | ${model.attempts.length} |`,
  ];
}

/** The hand-off, the grid and the decisions. */
function handoffGridAndDecisions(model: ReportModel): string[] {
  const out: string[] = [];
  const { handoff } = model.run;
  if (handoff)
    out.push(
      '',
      '### Needs the person',
      '',
      mdText(handoff.reason),
      '',
      mdFenced(clip(handoffLines(handoff).join('\n'), DIFF_LIMIT), 'text'),
    );
  const diagram = model.grid ? markedDiagram(model.grid) : null;
  if (model.grid) {
    out.push(
      '',
      '### Grid',
      '',
      diagram
        ? `<details><summary>${model.grid.len1 - 1} × ${model.grid.len2 - 1} commits</summary>\n\n${mdFenced(diagram, 'text')}\n\n</details>`
        : `${model.grid.len1 - 1} × ${model.grid.len2 - 1} commits (too large to draw here; see the HTML report).`,
    );
  }
  out.push('', '### Decisions', '');
  if (model.timeline.length === 0) out.push('None recorded.');
  for (const e of model.timeline) {
    out.push(
      `1. **${mdText(e.title)}**${e.times > 1 ? ` (×${e.times})` : ''} — ${mdText(e.by)}, ${formatTime(e.at)}${e.reasoning ? `  \n   ${mdText(clip(e.reasoning, REASONING_LIMIT))}` : ''}`,
    );
  }
  return out;
}

/** The failing baselines and the failures a person accepted: never blamed on a resolution. */
function baselinesAndAccepted(model: ReportModel): string[] {
  const out: string[] = [];
  const baselines = model.baselines.filter((b) => !b.passed);
  if (baselines.length > 0) {
    out.push(
      '',
      '### Baselines',
      '',
      'Checks that already fail without any resolution: these failures are never blamed on one.',
      '',
    );
    for (const b of baselines) {
      const where = b.cell === null ? `the ${b.side} tip` : `${b.side} commit ${b.cell}`;
      out.push(
        `- ${mdText(b.check)} on ${where} (${mdCode(shortOid(b.commit))}): ${b.failing === null ? 'fails, no test could be named (its whole outcome is the baseline)' : `${b.failing.length} failing test(s): ${mdText(firstTests(b.failing, 5))}`}${b.ran !== null ? ` (${b.ran} ran)` : ''}`,
      );
    }
  }
  if (model.accepted.length > 0) {
    out.push(
      '',
      '### Failures accepted by a person',
      '',
      'Expected at that step of the merge (`continue --accept-failure`); never blamed on a resolution since.',
      '',
    );
    for (const a of model.accepted) {
      out.push(
        `- ${mdText(a.check)} at ${a.conflicts.join(', ')}: ${a.failing === null ? 'its whole outcome' : `${a.failing.length} test(s): ${mdText(firstTests(a.failing, 5))}`} (${mdCode(a.logFile)})`,
      );
    }
  }
  return out;
}

/** The checks table and the cost by role. */
function checksAndCost(model: ReportModel): string[] {
  const out = ['', '### Checks', '', '| # | Check | On | Result | Time | Log |', '|---:|---|---|---|---:|---|'];
  for (const c of model.checks) {
    const judged = c.judgement
      ? `; ${c.judgement.blamed ? 'blamed' : '**not blamed**'}: ${mdText(c.judgement.reason)}`
      : '';
    const inherited = c.judgement?.inherited.length ?? 0;
    const result =
      (c.success
        ? 'passed'
        : c.reading === 'against_baseline' || c.reading === 'baseline' || c.reading === 'not_validated'
          ? `${readingText(c.reading, inherited)} (exit ${c.exitCode ?? '?'})`
          : c.timedOut
            ? '**timed out**'
            : `**failed** (exit ${c.exitCode ?? '?'})${c.summary ? `: ${mdText(c.summary.root_cause)}` : ''}`) + judged;
    out.push(
      `| ${c.index + 1} | ${mdText(c.name)} | ${c.cell ?? c.target} | ${result} | ${formatDuration(c.durationMs)} | ${mdCode(c.logFile)} |`,
    );
  }
  out.push(
    '',
    '### Cost by role',
    '',
    '| Role | Calls | Input tokens | Output tokens | Cost |',
    '|---|---:|---:|---:|---:|',
  );
  for (const r of [...roles, 'total'] as const) {
    const u = model.usage[r];
    out.push(
      `| ${r} | ${u.calls} | ${formatCount(u.inputTokens)} | ${formatCount(u.outputTokens)} | ${formatUsd(u.costUsd)} |`,
    );
  }
  return out;
}

/** The conflicts, as many as fit in what is left of the budget after `usedChars`. */
function conflictsSection(model: ReportModel, usedChars: number): string[] {
  const conflicts: string[] = ['', '### Conflicts', ''];
  let used = usedChars + 200;
  let shown = 0;
  for (const c of model.conflicts) {
    const md = conflictMd(c);
    if (used + md.length > BUDGET) break;
    conflicts.push(md, '');
    used += md.length + 1;
    shown++;
  }
  if (model.conflicts.length === 0) conflicts.push('None: everything merged automatically.');
  else if (shown < model.conflicts.length)
    conflicts.push(
      `${model.conflicts.length - shown} more conflict(s): see the HTML report (\`splintercat report --html FILE\`).`,
    );
  return conflicts;
}

/** The report as Markdown for a pull request description: summary, decisions, conflicts, checks, cost. */
export function renderMarkdownReport(model: ReportModel): string {
  const head = [
    ...summaryRows(model),
    ...handoffGridAndDecisions(model),
    ...baselinesAndAccepted(model),
    ...dropsMarkdown(model.drops, { text: mdText, code: mdCode }),
  ];
  const tail = [...estimatesSection(model), ...checksAndCost(model)];
  // Conflicts last in the budget, before the checks on the page: they take whatever room is left.
  const conflicts = conflictsSection(model, [...head, ...tail].join('\n').length);
  // Names, diffs and check output come from others: no control character is written raw (a terminal shows it too).
  return printableText(`${[...head, ...conflicts, ...tail].join('\n')}\n`);
}

/** The progress line and the planner's prediction against the run, as summary rows. */
function progressRows(model: ReportModel): string[] {
  const plan = planLine(model);
  // Plain text in a table cell: its `|` separators would end the cell.
  return [`| Progress | ${mdText(progressLine(model.outlook))} |`, ...(plan ? [`| Planner | ${mdText(plan)} |`] : [])];
}

/** The estimates made at hand-offs against what happened, and each switch of strategy with its reason. */
function estimatesSection(model: ReportModel): string[] {
  const [head, ...rows] = estimateRows(model);
  const switches = switchLines(model);
  if (rows.length === 0 && switches.length === 0) return [];
  const row = (cells: string[]): string => `| ${cells.map(mdText).join(' | ')} |`;
  return [
    '',
    '### Estimates against what happened',
    '',
    ...(rows.length > 0 && head ? [row(head), `|${head.map(() => '---').join('|')}|`, ...rows.map(row)] : []),
    ...(switches.length > 0 ? ['', ...switches.map((l) => `- ${mdText(l)}`)] : []),
  ];
}
