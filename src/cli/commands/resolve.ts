import type { Command } from 'commander';
import type { Git } from '../../git/index.js';
import type { LearntSuggestions, Rung, Suggestion, WorkingTreeFileResult } from '../../resolve/index.js';
import type { ModelRung } from '../../agents/model-rung.js';
import { takeCandidateCommand, takeCommand, takeOfChoice } from '../../resolve/take/take-command.js';
import { prefixedLines } from '../../util/safe-print.js';
import { modelAttempts } from '../../workflow/handoff/model-attempts.js';
import { hunksKeyed } from '../../store/stored-hunks.js';
import { handoffFile } from '../../workflow/handoff/index.js';
import { configRequest, globalOptions, printJson, printResult } from '../context.js';
import { ExitCode } from '../exit-codes.js';

/** `splintercat resolve [FILE...]`: the ladder over a conflicted working tree. */
export function registerResolve(program: Command): Command {
  return program
    .command('resolve')
    .description('run the resolution ladder on conflicted files of the working tree')
    .argument('[files...]', 'unmerged paths (default: every unmerged path)')
    .option('--json', 'machine-readable result on stdout')
    .option('--no-cache', 'do not read or write the resolution cache')
    .option('--no-model', 'do not ask the LLM resolver even when llm.resolver_model is set')
    .action(async (files: string[], opts: { json?: boolean; cache: boolean; model: boolean }, cmd: Command) => {
      const { configFor } = await import('../../workflow/config-for.js');
      const { Git } = await import('../../git/index.js');
      const { ladderFromConfig, resolveWorkingTree, sandboxedRegenerateRunner } =
        await import('../../resolve/index.js');
      const global = globalOptions(cmd);
      const { config, warnings } = await configFor.inMerge(configRequest(global));
      const git = new Git({ cwd: global.cwd });
      try {
        const top = await git.topLevel();
        const gitTop = git.at(top);
        try {
          const setup = await ladderFromConfig(config.resolve, gitTop, { noCache: !opts.cache });
          for (const w of [...warnings, ...setup.warnings]) process.stderr.write(`warning: ${w}\n`);
          const paths = await toTopLevelPaths(git, files);
          // Rung 3: the LLM resolver, whenever llm.resolver_model is configured (null = offline).
          const rung = opts.model
            ? (await import('../../agents/index.js')).createModelRungFromConfig(config, process.env, {
                git: gitTop,
                workdir: top,
                instructions: (await import('../../agents/index.js')).forkInstructions(
                  config.resolve.instructions,
                  top,
                ),
              })
            : null;
          if (setup.learnt?.settings.mode === 'apply') await setup.learnt.load('HEAD');
          const results = await resolveWorkingTree(gitTop, {
            paths,
            top,
            rules: setup.rules,
            cache: setup.cache,
            fallback: rung?.fallback,
            syntax: setup.syntax,
            regenerate: setup.regenerate,
            runCommand: sandboxedRegenerateRunner(config),
            policy: setup.policy,
            learnt: setup.learnt?.applier() ?? null,
          });
          if (rung) {
            const usage = rung.usage();
            process.stderr.write(
              `model: ${usage.hunksResolved} hunk(s) resolved, ${usage.inputTokens}+${usage.outputTokens} tokens, $${usage.costUsd.toFixed(4)}\n`,
            );
            const review = rung.reviewerUsage();
            if (review.calls > 0)
              process.stderr.write(
                `reviewer: ${review.calls} call(s), ${review.inputTokens}+${review.outputTokens} tokens, $${review.costUsd.toFixed(4)}\n`,
              );
          }
          const left = results.filter((r) => r.status !== 'resolved');
          const hunks = await handedHunks(gitTop, top, left, setup.learnt);
          const withheld = rung?.withheld ?? [];
          if (opts.json)
            printJson({ resolved: left.length === 0, files: results, ...hunksKeyed(hunks), ...withheldJson(withheld) });
          else printResult([formatResults(results, hunks), ...withheldLines(withheld)].join('\n'));
          if (left.length > 0) process.exitCode = ExitCode.NeedsPerson;
        } finally {
          gitTop.close();
        }
      } finally {
        git.close();
      }
    });
}

/** The files whose model resolution was not confirmed, with their candidates, behind the `model: ` prefix. */
function withheldLines(withheld: ModelRung['withheld']): string[] {
  return modelAttempts([], withheld).flatMap((m) => prefixedLines(m, 'model: '));
}

function withheldJson(withheld: ModelRung['withheld']): { withheld?: unknown } {
  if (withheld.length === 0) return {};
  return {
    withheld: withheld.map((w) => ({
      path: w.path,
      why: w.why,
      reviewer: w.reviewer,
      lines: w.lines,
      candidates: w.candidates.map((c, i) => ({ modelId: c.modelId, take: takeCandidateCommand(i + 1, w.path) })),
    })),
  };
}

/** Paths given relative to the current directory, as paths from the top level. */
async function toTopLevelPaths(git: Git, files: string[]): Promise<string[]> {
  if (files.length === 0) return [];
  const prefix = await git.text(['rev-parse', '--show-prefix']);
  return files.map((f) => (prefix === '' ? f : `${prefix}${f}`).replace(/\/+$/, ''));
}

type Hunks = Record<string, Array<{ hunk: number; suggestion: Suggestion | null }>>;

/**
 * The hunks left, numbered as `splintercat take` will know them (recorded in the working tree's
 * git dir), each with what the fork's past merges suggest when `resolve.learnt` is on.
 */
async function handedHunks(
  git: Git,
  top: string,
  left: WorkingTreeFileResult[],
  learnt: LearntSuggestions | null,
): Promise<Hunks> {
  const { listUnmerged, recordHunkNumbers, stagesId } = await import('../../resolve/index.js');
  if (left.length === 0) return {};
  if (learnt && left.some((r) => r.remaining.length > 0)) await learnt.load('HEAD');
  const entries = await listUnmerged(
    git,
    left.map((r) => r.path),
  );
  const files = left.flatMap((r) => {
    if (r.generated) return [];
    const entry = entries.find((e) => e.path === r.path);
    const hunks = r.remaining.flatMap((h) =>
      h.sides ? [{ number: h.number ?? h.index, sides: h.sides, startLine: h.startLine, endLine: h.endLine }] : [],
    );
    return entry && hunks.length > 0 ? [{ path: r.path, stages: stagesId(entry), hunks }] : [];
  });
  await recordHunkNumbers(await git.gitDir(false), files, { top });
  return Object.fromEntries(
    files.map((f) => [
      f.path,
      f.hunks.map((h) => ({ hunk: h.number, suggestion: learnt?.suggest(f.path, h.sides) ?? null })),
    ]),
  );
}

/** Per hunk: the suggested take command and why, or the take commands there are. */
function hunkLines(path: string, r: WorkingTreeFileResult, hunks: Hunks): string[] {
  return (hunks[path] ?? []).map((b, i) => {
    const at = r.remaining[i];
    const where = `  hunk ${b.hunk}${at ? ` (lines ${at.startLine}-${at.endLine})` : ''}`;
    const s = b.suggestion;
    const take = s ? takeOfChoice(s.choice) : null;
    return s && take
      ? `${where}: suggested ${takeCommand(take.choice, path, b.hunk, take.order)}  (${s.evidence})`
      : `${where}: ${takeCommand('ours', path, b.hunk).replace(' take ours ', ' take ours|theirs|both|base ')}`;
  });
}

/** The rungs whose answer is named by the rule alone (`hunk 1 by one-side-unchanged`); the others say the rung too. */
const RULE_NAMED: Record<Rung, boolean> = {
  cache: false,
  policy: false,
  generated: false,
  rule: true,
  syntax: false,
  learnt: false,
  model: false,
  person: false,
};

function formatResults(results: WorkingTreeFileResult[], hunks: Hunks = {}): string {
  if (results.length === 0) return 'No unmerged paths.';
  const lines: string[] = [];
  for (const r of results) {
    const by = r.resolutions.map((x) => `hunk ${x.hunkIndex} by ${RULE_NAMED[x.rung] ? x.by : `${x.rung} (${x.by})`}`);
    if (r.decision && r.decision.kind !== 'content' && r.decision.kind !== 'add/add') {
      lines.push(
        r.status === 'resolved'
          ? `${r.path}: resolved (${r.decision.kind}: ${r.decision.description}; ${r.policy ? `by the policy, ${r.policy}` : r.decision.resolution?.action})`
          : `${r.path}: needs a decision (${r.decision.kind}): ${r.decision.description}; options: ${r.decision.options.map((o) => o.action).join(', ')}`,
      );
      continue;
    }
    if (r.generated && r.status !== 'resolved') lines.push(handoffFile(r).instructions);
    else if (r.status === 'resolved') lines.push(`${r.path}: resolved and staged (${by.join(', ') || 'file-level'})`);
    else {
      const left = r.remaining.map((h) => `lines ${h.startLine}-${h.endLine}`).join(', ');
      lines.push(
        `${r.path}: ${r.remaining.length} hunk(s) left (${left})${by.length > 0 ? `; resolved ${by.join(', ')}` : ''}${r.note ? `; ${r.note}` : ''}`,
        ...hunkLines(r.path, r, hunks),
      );
    }
  }
  const left = results.filter((r) => r.status !== 'resolved').length;
  lines.push(
    left === 0
      ? 'All conflicts resolved.'
      : `${left} file(s) need the person: settle each hunk with the command shown (or edit the file), then \`git add\` what you edited (or run \`splintercat continue\` in a run's worktree).`,
  );
  return lines.join('\n');
}
