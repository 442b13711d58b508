import { Option, type Command } from 'commander';
import { UsageError } from '../../errors/index.js';
import type { TakeOutcome } from '../../resolve/take/take-in-tree.js';
import { takeChoices, takeCommand, type TakeChoice, type TakeOrder } from '../../resolve/take/take-command.js';
import { hunksKeyed } from '../../store/stored-hunks.js';
import { printableName as shown, shellWord } from '../../util/safe-print.js';
import { globalOptions, printJson, printResult } from '../context.js';

/**
 * `splintercat take ours|theirs|both|base|combined [FILE [HUNK]]`: settle conflict hunks with one command;
 * `splintercat take candidate K FILE`: the model's K-th candidate resolution of FILE, as the hand-off offers it.
 */
export function registerTake(program: Command): Command {
  return program
    .command('take')
    .description(
      "settle conflict hunks with one side, both, both combined line by line, or the base: a file's every hunk, or one (by number); a file decided whole (binary, modify/delete, generated) takes ours or theirs whole; `take candidate K FILE` writes the model's K-th candidate resolution the hand-off offers",
    )
    .argument('<choice>', `what to keep: ${takeChoices.join(' | ')} | candidate`)
    .argument('[file]', 'a conflicted file (default: every conflicted file)')
    .argument('[hunk]', "one hunk of FILE, by the number the hand-off and this command's output give it")
    .addOption(
      new Option('--order <order>', 'with both: which side comes first').choices(['ours-first', 'theirs-first']),
    )
    .option('--json', 'machine-readable result on stdout')
    .action(
      async (
        choice: string,
        file: string | undefined,
        hunk: string | undefined,
        opts: { order?: TakeOrder; json?: boolean },
        cmd: Command,
      ) => {
        const candidate = choice === 'candidate' ? parseCandidate(file, hunk, opts.order) : null;
        const request = candidate ? { choice: 'ours' as const } : parseRequest(choice, file, hunk, opts.order);
        const { Git } = await import('../../git/index.js');
        const { takeInWorkingTree } = await import('../../resolve/take/take-in-tree.js');
        const global = globalOptions(cmd);
        const git = new Git({ cwd: global.cwd });
        try {
          const inRepo = await git.run(['rev-parse', '--show-toplevel'], { okExitCodes: [0, 128] });
          if (inRepo.exitCode !== 0)
            throw new UsageError('take_not_a_repo', {
              what: `${global.cwd} is not in a git working tree`,
              fix: "cd into the conflict's worktree (the hand-off prints it) or the repository you are merging in",
            });
          const top = inRepo.stdout.trim();
          const prefix = await git.text(['rev-parse', '--show-prefix']);
          const top1 = git.at(top);
          try {
            const named = candidate?.path ?? request.path;
            const path = named === undefined ? undefined : `${prefix}${named}`.replace(/^\.\//, '');
            const outcome = candidate
              ? await (
                  await import('../../resolve/take/take-candidate.js')
                ).takeCandidate(top1, top, path ?? '', candidate.k)
              : await takeInWorkingTree(top1, top, { ...request, ...(path ? { path } : {}) });
            if (outcome.taken.length === 0) throw refusal(outcome, request.choice);
            if (opts.json || global.json) printJson(takeJson(outcome));
            else printResult(formatTake(outcome, request, candidate !== null));
          } finally {
            top1.close();
          }
        } finally {
          git.close();
        }
      },
    );
}

/** `take candidate K FILE`: the candidate's number and the file. */
function parseCandidate(k: string | undefined, file: string | undefined, order: TakeOrder | undefined) {
  const number = k === undefined ? NaN : Number(k);
  if (!Number.isInteger(number) || number <= 0 || file === undefined || order !== undefined)
    throw new UsageError('take_choice', {
      what: "take candidate needs the candidate's number and the file",
      fix: 'splintercat take candidate 2 FILE   # the number the hand-off gives the candidate',
    });
  return { k: number, path: file };
}

function parseRequest(choice: string, file: string | undefined, hunk: string | undefined, order?: TakeOrder) {
  if (!(takeChoices as readonly string[]).includes(choice))
    throw new UsageError('take_choice', {
      what: `'${choice}' is not a choice take knows`,
      fix: [
        'splintercat take ours FILE [HUNK]     # the fork side (HEAD)',
        'splintercat take theirs FILE [HUNK]   # the side being merged in',
        'splintercat take both [--order theirs-first] FILE [HUNK]',
        'splintercat take base FILE [HUNK]     # neither change',
        "splintercat take combined FILE [HUNK] # both sides' lines merged line by line, to edit from",
      ],
    });
  if (order !== undefined && choice !== 'both')
    throw new UsageError('take_choice', {
      what: `--order goes with both, not with ${choice}`,
      fix: `splintercat take both --order ${order}${file ? ` ${file}` : ''}${hunk ? ` ${hunk}` : ''}`,
    });
  const number = hunk === undefined ? undefined : Number(hunk);
  if (number !== undefined && (!Number.isInteger(number) || number <= 0))
    throw new UsageError('take_choice', {
      what: `'${hunk}' is not a hunk number`,
      fix: 'Give the number the hand-off (or the last take) printed for the hunk, e.g. splintercat take ours FILE 2',
    });
  return {
    choice: choice as TakeChoice,
    ...(order ? { order } : {}),
    ...(file !== undefined ? { path: file } : {}),
    ...(number !== undefined ? { hunk: number } : {}),
  };
}

function refusal(outcome: TakeOutcome, choice: TakeChoice): UsageError {
  const first = outcome.refused[0];
  return new UsageError('take_not_applicable', {
    what: first ? first.why : `no conflicted file to take ${choice} in`,
    why:
      outcome.refused.length > 1
        ? outcome.refused
            .slice(1)
            .map((r) => r.why)
            .join('\n')
        : 'nothing was written',
    fix: [...new Set([...(first?.fix ?? []), ...leftLines(notRefused(outcome)).slice(0, 10)])],
  });
}

/** The outcome without the files left whose every command a refusal lists already: a list says each fix once. */
function notRefused(outcome: TakeOutcome): TakeOutcome {
  const fixes = new Set(outcome.refused.flatMap((r) => r.fix));
  const repeats = (f: TakeOutcome['left'][number]): boolean =>
    f.hunks.length === 0 && (f.commands ?? []).length > 0 && (f.commands ?? []).every((c) => fixes.has(c));
  return { ...outcome, left: outcome.left.filter((f) => !repeats(f)) };
}

/** What a run does with a file taken whole: the same side at every later conflict on it in this merge. */
function rememberedLine(path: string, choice: 'ours' | 'theirs'): string {
  const side = choice === 'ours' ? 'the fork side' : 'upstream';
  const other = choice === 'ours' ? 'theirs' : 'ours';
  return (
    `${shown(path)}: later conflicts in this file in this merge take ${side} (${choice}) without asking; ` +
    `change with \`git checkout -m -- ${shellWord(path)} && splintercat take ${other} ${shellWord(path)}\` here before continuing, or with a resolve.paths rule for it (the policy comes first)`
  );
}

/** The outcome as `--json` prints it: each file left with its hunks under the key earlier versions printed. */
function takeJson(outcome: TakeOutcome): unknown {
  return { ...outcome, left: outcome.left.map(({ hunks, ...file }) => ({ ...file, ...hunksKeyed(hunks) })) };
}

/** What was taken, what is left (with the command for each hunk), and what to run then. */
function formatTake(
  outcome: TakeOutcome,
  request: { choice: TakeChoice; order?: TakeOrder },
  candidate: boolean,
): string {
  const what = request.choice === 'both' ? `both, ${request.order ?? 'ours-first'}` : request.choice;
  const lines = outcome.taken.map((t) =>
    candidate && t.whole !== undefined
      ? `${shown(t.path)}: ${t.whole}; staged`
      : t.whole !== undefined
        ? `${shown(t.path)}: took ${what} for the whole file: ${t.whole}; staged`
        : `${shown(t.path)}: took ${what} for hunk${t.hunks.length === 1 ? '' : 's'} ${t.hunks.join(', ')}${t.staged ? '; no hunk left, staged' : ''}`,
  );
  if (outcome.then.startsWith('splintercat '))
    for (const t of outcome.taken) if (t.remembered) lines.push(rememberedLine(t.path, t.remembered));
  for (const r of outcome.refused) lines.push(`not taken: ${r.why} (${r.fix.join('  or  ')})`);
  const left = leftLines(outcome);
  if (left.length === 0) lines.push('No conflict left.', `Then: ${outcome.then}`);
  else lines.push('Left to settle:', ...left.map((l) => `  ${l}`), `When they are settled: ${outcome.then}`);
  return lines.join('\n');
}

/**
 * Each hunk left with the one command of its choices, none of them first as if it were the
 * default (`take ours|theirs|both FILE N`, `|base` only where the hunk has a base), and where
 * it was handed over when it has moved since.
 */
function leftLines(outcome: TakeOutcome): string[] {
  return outcome.left.flatMap((f) =>
    f.hunks.length > 0
      ? f.hunks.map((b) => {
          const handed = b.handed ? `, handed over at ${b.handed.startLine}-${b.handed.endLine}` : '';
          return `${shown(f.path)} hunk ${b.number} (lines ${b.startLine}-${b.endLine}${handed}): ${takeCommand(b.choices, f.path, b.number)}`;
        })
      : [`${shown(f.path)} [${f.kind}]: ${(f.commands ?? []).join('  or  ')}`],
  );
}
