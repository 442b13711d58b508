import type { Git } from '../git/index.js';
import { nullLogger, type Logger } from '../log/logger.js';
import {
  decidedOnceStage,
  fileDecisionStage,
  fileMemoryStage,
  filePolicyStage,
  generatedFileStage,
  missingFileStage,
  regenerateLockfileStage,
} from './file-stages.js';
import { byLearnt, byModel, byPolicy, bySyntaxMerge, fromCache, keyOf } from './hunk-stages.js';
import type {
  HunksAtHand,
  LadderOptions,
  LadderResult,
  LadderStage,
  PathAtHand,
  WorkingTreeFileResult,
} from './ladder-types.js';
import { mergeFileTexts } from './parse/merge-file.js';
import { parseConflictText, printOutsideHunk, printWithResolutions } from './parse/markers.js';
import { selectRules } from './rules/index.js';
import { fitsParser, rulesForHunk } from './size-limits.js';
import { parseProblems } from './syntax/validate-text.js';
import { printableLine, printableName } from '../util/safe-print.js';
import type { ConflictedFile, ConflictHunk, HunkResolution } from './types.js';

export type { LadderFallback, LadderOptions, LadderResult } from './ladder-types.js';

/**
 * The ladder, read top to bottom by `climb`: the file-level stages first, each of which may settle
 * a conflicted path whole (or stop there), then the hunk-level stages on the hunks still open.
 * A path goes down until a stage settles it; what no stage answers is left to a person. Cheap and
 * sure comes first, except that the fork's policy is asked before the cache: the cache may hold
 * answers from the shared remote, which never override what the fork decided for a path. A path
 * decided once for this merge (a person's whole-file take, this clone's own record) comes first of
 * all, so a lockfile whose command failed there is not run and handed over again at every cell;
 * it too gives way to the fork's policy.
 */
const LADDER: readonly LadderStage[] = [
  { level: 'file', rung: 'cache', name: 'decided-once', settle: decidedOnceStage },
  { level: 'file', rung: 'generated', name: 'regenerate-lockfile', settle: regenerateLockfileStage },
  { level: 'file', rung: 'policy', name: 'file-policy', settle: filePolicyStage },
  { level: 'file', rung: 'cache', name: 'file-memory', settle: fileMemoryStage },
  { level: 'file', rung: 'rule', name: 'file-decision', settle: fileDecisionStage },
  { level: 'file', rung: 'person', name: 'missing-file', settle: missingFileStage },
  { level: 'file', rung: 'person', name: 'generated-file', settle: generatedFileStage },
  { level: 'hunk', rung: 'policy', name: 'policy', answer: byPolicy, onPersonPaths: true, unparsedToPerson: true },
  { level: 'hunk', rung: 'cache', name: 'cache', answer: fromCache, onPersonPaths: true },
  { level: 'hunk', rung: 'rule', name: 'rules', answer: byRules },
  { level: 'hunk', rung: 'syntax', name: 'syntax-merge', answer: bySyntaxMerge, thenKeepsParsing: true },
  { level: 'hunk', rung: 'learnt', name: 'learnt', answer: byLearnt },
  { level: 'hunk', rung: 'model', name: 'model', answer: byModel },
];

/**
 * The rules on each hunk, in order: the first that is sure answers. An answer a failed check
 * blamed is not given again, even by the rule that gave it first. Beside `LADDER`, not with the
 * other hunk-level stages, so a rule's answer is one call from `climb` in one file.
 */
async function byRules(at: HunksAtHand, open: readonly ConflictHunk[]): Promise<HunkResolution[]> {
  const { file, cache, log } = at;
  const out: HunkResolution[] = [];
  for (const hunk of open) {
    const sides = { base: hunk.base, ours: hunk.ours, theirs: hunk.theirs };
    const context = { ...at.context, outside: printOutsideHunk(file, hunk.index) };
    for (const rule of rulesForHunk(hunk, at.rules)) {
      const text = rule.resolve(sides, context);
      if (text === null) continue;
      const key = keyOf(at, hunk);
      if (key.cacheKey !== undefined && cache && (await cache.isBlamed(key.cacheKey, text))) {
        log.decision(
          { path: file.path, hunk: hunk.index, by: rule.name },
          'rule answer was blamed by a failed check before: hunk left to the next rung',
        );
      } else out.push({ text, rung: 'rule', by: rule.name, hunkIndex: hunk.index, ...key });
      break;
    }
  }
  return out;
}

/** Where a climb ended: a file-level stage settled (or stopped) the path, or the hunk-level stages answered what they could. */
type Climbed =
  { settled: WorkingTreeFileResult } | { hunks: HunksAtHand; answers: ReadonlyMap<number, HunkResolution> };

/**
 * Take one conflicted file down the ladder. `path` is the path in a working tree, for the
 * file-level stages (null for a file given as text: the merge driver, `eval`); `toHunks` gives
 * its hunks once no file-level stage settled it, or the path's result when it has none to merge.
 */
export async function climb(
  path: PathAtHand | null,
  toHunks: () => Promise<{ hunks: HunksAtHand } | { settled: WorkingTreeFileResult }>,
): Promise<Climbed> {
  let hunks: HunksAtHand | null = null;
  let answers = new Map<number, HunkResolution>();
  for (const stage of LADDER) {
    if (stage.level === 'file') {
      const settled = path === null ? null : await stage.settle(path);
      if (settled) return { settled };
      continue;
    }
    if (hunks === null) {
      const read = await toHunks();
      if ('settled' in read) return read;
      hunks = read.hunks;
    }
    const open = hunks.file.hunks.filter((h) => !answers.has(h.index));
    if (open.length > 0 && (!hunks.toPerson || stage.onPersonPaths)) {
      const indexes = new Set(open.map((h) => h.index));
      for (const r of await stage.answer(hunks, open))
        if (r.hunkIndex !== undefined && indexes.has(r.hunkIndex)) answers.set(r.hunkIndex, r);
    }
    if (stage.thenKeepsParsing && answers.size > 0 && (await brokenSyntax(hunks.file, answers, hunks.log)).length > 0)
      answers = new Map();
    if (stage.unparsedToPerson && answers.size > 0) {
      const problems = await brokenSyntax(hunks.file, answers, hunks.log);
      // The fork decided this path: no later rung decides it otherwise where its decision does not parse.
      if (problems.length > 0) {
        hunks = policyUnparsed(hunks, answers, problems);
        answers = new Map();
      }
    }
  }
  if (hunks === null) throw new Error('the ladder has no hunk-level stage');
  await storeAnswers(hunks, answers);
  return { hunks, answers };
}

/** What the hunk-level stages are given for one parsed file. */
export function hunksAtHand(file: ConflictedFile, options: LadderOptions): HunksAtHand {
  const policy = options.policy ?? null;
  const cache = options.cache ?? null;
  return {
    file,
    options,
    log: options.log ?? nullLogger,
    rules: options.rules ?? selectRules(),
    cache,
    context: { path: file.path, eol: file.eol, ...(options.sides ? { files: options.sides } : {}) },
    keys: new Map(
      cache ? file.hunks.map((h) => [h.index, cache.key({ base: h.base, ours: h.ours, theirs: h.theirs })]) : [],
    ),
    policy,
    toPerson: policy?.decision.kind === 'person',
  };
}

/** The answers in hunk order, logged, and the file with them written in (the others still in markers). */
export function ladderResult(hunks: HunksAtHand, answers: ReadonlyMap<number, HunkResolution>): LadderResult {
  const { file, log } = hunks;
  const resolutions = file.hunks.flatMap((h) => answers.get(h.index) ?? []);
  for (const r of resolutions)
    log.decision({ path: file.path, hunk: r.hunkIndex, rung: r.rung, by: r.by }, 'hunk resolved');
  const texts = new Map([...answers].map(([i, r]) => [i, r.text]));
  const remaining = file.hunks.filter((h) => !answers.has(h.index));
  return { text: printWithResolutions(file, texts), resolutions, remaining, file };
}

/** The ladder's hunk-level stages on an already parsed file. */
export async function resolveConflictedFile(file: ConflictedFile, options: LadderOptions): Promise<LadderResult> {
  const at = hunksAtHand(file, options);
  const climbed = await climb(null, async () => ({ hunks: at }));
  return ladderResult(at, 'answers' in climbed ? climbed.answers : new Map());
}

/**
 * Run the ladder (cache, rules, fallback) over a conflicted file's text. Hunks
 * no rung is sure of stay in markers exactly as they were read.
 */
export async function resolveFileText(text: string, options: LadderOptions): Promise<LadderResult> {
  const file = parseConflictText(text, { path: options.path, markerSize: options.markerSize });
  return resolveConflictedFile(file, options);
}

/**
 * Store the new answers in the cache, for a later merge and for a failed check to blame. The
 * policy's come from the configuration each time, so a copy would outlive a changed policy; a
 * learnt answer comes from the history each time; a cached one is there already.
 */
async function storeAnswers(hunks: HunksAtHand, answers: ReadonlyMap<number, HunkResolution>): Promise<void> {
  const { cache } = hunks;
  if (!cache) return;
  for (const r of answers.values()) {
    if (!STORED[r.rung] || r.cacheKey === undefined) continue;
    const provenance = { file: hunks.file.path, ...hunks.options.provenance };
    await cache.put(r.cacheKey, { resolution: r.text, rung: r.rung, by: r.by, provenance });
  }
}

/** Whether a rung's answers are stored in the cache (`storeAnswers`). */
const STORED: Record<HunkResolution['rung'], boolean> = {
  cache: false,
  policy: false,
  generated: false,
  rule: true,
  syntax: true,
  learnt: false,
  model: true,
  person: true,
};

/**
 * What the deterministic answers (cache, rules, syntax rung, policy) break of the file's syntax:
 * the file with them applied (open hunks read as ours) must add no syntax error that all-ours or
 * all-theirs did not have. When it does (logged), none of them is taken for this file: an answer
 * that breaks the syntax is not near-perfect. Empty when they keep it parsing.
 */
async function brokenSyntax(
  file: ConflictedFile,
  resolved: ReadonlyMap<number, HunkResolution>,
  log: Logger,
): Promise<string[]> {
  const side = (which: 'ours' | 'theirs', withResolutions: boolean): string =>
    printWithResolutions(
      file,
      new Map(
        file.hunks.map((h) => [h.index, (withResolutions ? resolved.get(h.index)?.text : undefined) ?? h[which]]),
      ),
    );
  const mine = side('ours', true);
  const sides = [side('ours', false), side('theirs', false)];
  // Too large to parse (a parse tree's memory grows with the file): the answers stand unchecked.
  if (!fitsParser(mine, ...sides)) return [];
  const problems = await parseProblems(file.path, mine, sides);
  if (problems.length === 0) return [];
  log.warn(
    { path: file.path, problems, by: [...resolved.values()].map((r) => r.by) },
    'deterministic resolutions break the syntax; none taken for the file',
  );
  return problems;
}

/** The file handed to a person, as a policy handing it over does, with why: the policy's answers do not parse. */
function policyUnparsed(
  hunks: HunksAtHand,
  answers: ReadonlyMap<number, HunkResolution>,
  problems: readonly string[],
): HunksAtHand {
  const rules = [...new Set([...answers.values()].map((r) => r.by))].join('; ');
  const why = problems
    .slice(0, 2)
    .map((p) => printableLine(p.slice(0, 200)))
    .join('; ');
  return {
    ...hunks,
    toPerson: true,
    note: `the fork's policy (${printableLine(rules)} in resolve.paths) leaves ${printableName(hunks.file.path)} not parsing (${why}): left to a person`,
  };
}

export interface ThreeWayInput {
  base: string;
  ours: string;
  theirs: string;
  labels?: { ours?: string; base?: string; theirs?: string };
}

/**
 * Merge three versions with git's own merge (`git merge-file --diff3`), then run
 * the ladder on the hunks git left. The merge driver and `eval` use this.
 */
export async function resolveThreeWay(
  git: Git,
  input: ThreeWayInput,
  options: LadderOptions,
): Promise<LadderResult & { gitConflicts: number }> {
  const merged = await mergeFileTexts(git, { ...input, style: 'diff3', markerSize: options.markerSize });
  const result = await resolveFileText(merged.text, { ...options, sides: options.sides ?? input });
  return { ...result, gitConflicts: merged.conflicts };
}
