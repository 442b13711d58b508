import type { Git } from '../git/index.js';
import { nullLogger, type Logger } from '../log/logger.js';
import { replayable } from './cache/replay.js';
import { withEol, type CacheProvenance, type ResolutionCache } from './cache/resolution-cache.js';
import { mergeFileTexts } from './parse/merge-file.js';
import { hasMarkers, parseConflictText, printOutsideHunk, printWithResolutions } from './parse/markers.js';
import { selectRules, type ResolutionRule, type RuleContext } from './rules/index.js';
import { hunkTextsFromMerge, lineMerge, syntaxMerge, type SyntaxSwitches } from './syntax/syntax-merge.js';
import { parseProblems } from './syntax/validate-text.js';
import { policyResolution, type PathRule } from './policy/path-policy.js';
import { fitsParser, rulesForHunk } from './size-limits.js';
import type { ConflictedFile, ConflictHunk, HunkResolution } from './types.js';

/**
 * The hook for the rungs after the rules (the LLM resolver, a human prompt):
 * given the file and the hunks still open, it returns resolutions for the hunks
 * it could resolve (`hunkIndex` set) and leaves the others out.
 */
export type LadderFallback = (file: ConflictedFile, hunks: ConflictHunk[]) => Promise<HunkResolution[]>;

export interface LadderOptions {
  /** The file's path (for rules, logs and cache provenance). */
  path: string;
  /** Rules to try; default: the rules enabled by default. */
  rules?: readonly ResolutionRule[];
  /** Rung 1; null or omitted = no cache. */
  cache?: ResolutionCache | null;
  /** Stored with new cache entries. */
  provenance?: CacheProvenance;
  fallback?: LadderFallback;
  /**
   * The whole base, ours and theirs, when known: the syntax-aware rung needs
   * them (it merges the file entity by entity, then maps the result onto the hunks).
   */
  sides?: { base: string | null; ours: string | null; theirs: string | null };
  /** The syntax-aware rung's switches (`resolve.syntax`); default: both off. */
  syntax?: SyntaxSwitches;
  /** `conflict-marker-size` of the path, when known. */
  markerSize?: number;
  /**
   * The fork's policy for this path (`resolve.paths`), consulted before the cache: one side or
   * both for every hunk; `human` leaves every hunk to a person (only this clone's person's own
   * cached answer is replayed, never one imported from another clone).
   */
  policy?: PathRule | null;
  /** After the rules and the syntax rung, before the fallback: a learnt suggestion taken without asking. */
  learnt?: ((hunk: ConflictHunk) => HunkResolution | null) | null;
  log?: Logger;
}

export interface LadderResult {
  /** The file with resolved hunks replaced and the others still in markers. */
  text: string;
  resolutions: HunkResolution[];
  remaining: ConflictHunk[];
  file: ConflictedFile;
}

/**
 * The name the syntax-aware rung's resolutions carry (as rung 'rule', so the
 * cache, the journal and the reports take them as they are).
 */
export const SYNTAX_RUNG = 'syntax-merge';

/** Try the rules on one hunk in order; the first that is sure wins. Pure. */
export function resolveHunkWithRules(
  hunk: ConflictHunk,
  rules: readonly ResolutionRule[],
  context: RuleContext,
): HunkResolution | null {
  for (const rule of rules) {
    const text = rule.resolve({ base: hunk.base, ours: hunk.ours, theirs: hunk.theirs }, context);
    if (text !== null) return { text, rung: 'rule', by: rule.name, hunkIndex: hunk.index };
  }
  return null;
}

/**
 * Run the ladder (cache, rules, fallback) over a conflicted file's text. Hunks
 * no rung is sure of stay in markers exactly as they were read.
 */
export async function resolveFileText(text: string, options: LadderOptions): Promise<LadderResult> {
  const file = parseConflictText(text, { path: options.path, markerSize: options.markerSize });
  return resolveConflictedFile(file, options);
}

/** One run of the ladder over one file: its options, and the answers and cache keys found so far. */
interface LadderRun {
  file: ConflictedFile;
  options: LadderOptions;
  log: Logger;
  rules: readonly ResolutionRule[];
  cache: LadderOptions['cache'] | null;
  context: RuleContext;
  resolved: Map<number, HunkResolution>;
  keys: Map<number, string>;
  policy: LadderOptions['policy'] | null;
  /** The policy hands the file to a person: only the person's cached answers and the policy count. */
  toPerson: boolean;
}

/**
 * The cached answer for a hunk, when one may be taken: live, replayable, without conflict markers
 * (the check the model's answers get: an entry may come from another clone), never an imported
 * one on a path the policy decides, and on a path it hands to a person, only a person's answer.
 */
async function cachedAnswer(run: LadderRun, hunk: ConflictHunk, key: string): Promise<HunkResolution | null> {
  const { file, rules, context, toPerson, log } = run;
  const sides = { base: hunk.base, ours: hunk.ours, theirs: hunk.theirs };
  const hit = await run.cache?.get(key);
  if (!hit) return null;
  // Another clone's answer never stands in for the fork's policy: on a path it decides (a person,
  // a regenerate command), only what this clone decided itself is replayed.
  if (hit.imported === true && run.policy) {
    log.decision(
      { path: file.path, hunk: hunk.index, by: `${hit.rung}:${hit.by}`, policy: run.policy.glob },
      "another clone's cached answer for a path the fork's policy decides: not taken",
    );
    return null;
  }
  if (toPerson && hit.rung !== 'human') return null;
  if (hasMarkers(hit.resolution) || hasMarkers(hit.resolution, file.markerSize)) {
    log.warn(
      { path: file.path, hunk: hunk.index, by: `${hit.rung}:${hit.by}`, imported: hit.imported === true },
      'cached resolution holds conflict markers; not taken',
    );
    return null;
  }
  if (!replayable(hit, sides, rules, { ...context, outside: printOutsideHunk(file, hunk.index) })) return null;
  const text = withEol(hit.resolution, file.eol);
  // The merge record says whose answer it is: another clone's is not this clone's person's choice.
  const by = `${hit.rung}:${hit.by}${hit.imported === true ? ' (shared cache, from another clone)' : ''}`;
  return { text, rung: 'cache', by, hunkIndex: hunk.index, cacheKey: key };
}

/**
 * The policy, the cache and the rules on one hunk (into `run.resolved`). The fork's policy comes
 * first: the cache may hold answers from the shared remote, which never override what the fork
 * decided for a path (`ours`, `theirs`, `union`, `human`).
 */
async function resolveHunkCheaply(run: LadderRun, hunk: ConflictHunk): Promise<void> {
  const { file, cache, rules, context, resolved, keys, policy, toPerson, log } = run;
  const key = cache ? cache.key({ base: hunk.base, ours: hunk.ours, theirs: hunk.theirs }) : undefined;
  if (key !== undefined) keys.set(hunk.index, key);
  const byPolicy = policy ? policyResolution(hunk, policy) : null;
  if (byPolicy) {
    resolved.set(hunk.index, byPolicy);
    return;
  }
  const cached = key === undefined ? null : await cachedAnswer(run, hunk, key);
  if (cached) {
    resolved.set(hunk.index, cached);
    return;
  }
  if (toPerson) return;
  const outside = printOutsideHunk(file, hunk.index);
  const byRule = resolveHunkWithRules(hunk, rulesForHunk(hunk, rules), { ...context, outside });
  if (!byRule) return;
  // An answer a failed check blamed is not given again, even by the rule that gave it first.
  if (key !== undefined && cache && (await cache.isBlamed(key, byRule.text))) {
    log.decision(
      { path: file.path, hunk: hunk.index, by: byRule.by },
      'rule answer was blamed by a failed check before: hunk left to the next rung',
    );
    return;
  }
  if (key !== undefined) byRule.cacheKey = key;
  resolved.set(hunk.index, byRule);
}

/** The syntax-aware rung on the open hunks, when it is switched on and the three versions fit the parser. */
async function syntaxRung(run: LadderRun, open: ConflictHunk[]): Promise<void> {
  const { file, resolved, keys } = run;
  const sides = run.options.sides;
  const switches = run.options.syntax ?? { code: false, data: false };
  if (open.length === 0 || !(switches.code || switches.data) || !sides || run.toPerson) return;
  if (sides.ours === null || sides.theirs === null || !fitsParser(sides.base, sides.ours, sides.theirs)) return;
  const versions = { base: sides.base ?? '', ours: sides.ours, theirs: sides.theirs };
  const pieces = await syntaxMerge(file.path, versions, lineMerge, switches);
  if (pieces === null) return;
  const texts = hunkTextsFromMerge(file, pieces);
  for (const hunk of open) {
    const text = texts.get(hunk.index);
    if (text === undefined) continue;
    const key = keys.get(hunk.index);
    const cacheKey = key === undefined ? {} : { cacheKey: key };
    resolved.set(hunk.index, { text, rung: 'rule', by: SYNTAX_RUNG, hunkIndex: hunk.index, ...cacheKey });
  }
}

/** The fallback (an LLM, untrusted) on the open hunks: only answers for open hunks, without markers, not blamed, count. */
async function fallbackRung(run: LadderRun, open: ConflictHunk[], fallback: LadderFallback): Promise<void> {
  const { file, resolved, keys, cache, log } = run;
  const openIndexes = new Set(open.map((h) => h.index));
  for (const r of await fallback(file, open)) {
    if (r.hunkIndex === undefined || !openIndexes.has(r.hunkIndex) || resolved.has(r.hunkIndex)) continue;
    if (hasMarkers(r.text, file.markerSize)) {
      log.warn(
        { path: file.path, hunk: r.hunkIndex, by: r.by },
        'fallback resolution still holds conflict markers; hunk left open',
      );
      continue;
    }
    const key = keys.get(r.hunkIndex);
    if (key !== undefined && cache && (await cache.isBlamed(key, r.text))) {
      log.warn(
        { path: file.path, hunk: r.hunkIndex, by: r.by },
        'fallback answer was blamed by a failed check before; hunk left open',
      );
      continue;
    }
    resolved.set(r.hunkIndex, key === undefined ? { ...r } : { ...r, cacheKey: key });
  }
}

/** Store the new answers in the cache; the policy's come from the configuration each time, so a copy would outlive a changed policy. */
async function storeAnswers(run: LadderRun): Promise<void> {
  if (!run.cache) return;
  for (const r of run.resolved.values()) {
    if (r.rung === 'cache' || r.rung === 'policy' || r.cacheKey === undefined) continue;
    const provenance = { file: run.file.path, ...run.options.provenance };
    await run.cache.put(r.cacheKey, { resolution: r.text, rung: r.rung, by: r.by, provenance });
  }
}

/** The ladder on an already parsed file. */
export async function resolveConflictedFile(file: ConflictedFile, options: LadderOptions): Promise<LadderResult> {
  const log = options.log ?? nullLogger;
  const policy = options.policy ?? null;
  const run: LadderRun = {
    file,
    options,
    log,
    rules: options.rules ?? selectRules(),
    cache: options.cache ?? null,
    context: { path: file.path, eol: file.eol, ...(options.sides ? { files: options.sides } : {}) },
    resolved: new Map(),
    keys: new Map(),
    policy,
    toPerson: policy?.decision.kind === 'human',
  };
  const { resolved, toPerson } = run;
  const stillOpen = (): ConflictHunk[] => file.hunks.filter((h) => !resolved.has(h.index));
  for (const hunk of file.hunks) await resolveHunkCheaply(run, hunk);
  await syntaxRung(run, stillOpen());
  let open = stillOpen();
  if (resolved.size > 0 && !(await keepsSyntax(file, resolved, log))) {
    resolved.clear();
    open = [...file.hunks];
  }
  if (options.learnt && !toPerson) open = takeLearnt(file, open, resolved, options.learnt);
  if (open.length > 0 && options.fallback && !toPerson) {
    await fallbackRung(run, open, options.fallback);
    open = stillOpen();
  }
  await storeAnswers(run);
  const resolutions = file.hunks.flatMap((h) => resolved.get(h.index) ?? []);
  for (const r of resolutions)
    log.decision({ path: file.path, hunk: r.hunkIndex, rung: r.rung, by: r.by }, 'hunk resolved');
  const texts = new Map([...resolved].map(([i, r]) => [i, r.text]));
  return { text: printWithResolutions(file, texts), resolutions, remaining: open, file };
}

/** The learnt suggestions `resolve.learnt: apply` takes for the open hunks (into `resolved`); the hunks still open. */
function takeLearnt(
  file: ConflictedFile,
  open: ConflictHunk[],
  resolved: Map<number, HunkResolution>,
  learnt: (hunk: ConflictHunk) => HunkResolution | null,
): ConflictHunk[] {
  for (const hunk of open) {
    const r = learnt(hunk);
    if (r) resolved.set(hunk.index, r);
  }
  return file.hunks.filter((h) => !resolved.has(h.index));
}

/**
 * Whether the deterministic answers (cache, rules, syntax rung) keep the file
 * parsing: the file with them applied (open hunks read as ours) must add no
 * syntax error that all-ours or all-theirs did not have. When it does, none
 * of them is taken for this file (logged): a cached or rule answer that
 * breaks the syntax is not near-perfect.
 */
async function keepsSyntax(
  file: ConflictedFile,
  resolved: ReadonlyMap<number, HunkResolution>,
  log: Logger,
): Promise<boolean> {
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
  if (!fitsParser(mine, ...sides)) return true;
  const problems = await parseProblems(file.path, mine, sides);
  if (problems.length === 0) return true;
  log.warn(
    { path: file.path, problems, by: [...resolved.values()].map((r) => r.by) },
    'deterministic resolutions break the syntax; left to the next rung',
  );
  return false;
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
