import type { Git } from '../git/index.js';
import type { Logger } from '../log/logger.js';
import type { WholeFileDecision } from '../store/flow-choices.js';
import type { Rung } from '../store/rung.js';
import type { CacheProvenance, ResolutionCache } from './cache/resolution-cache.js';
import type { GeneratedFile } from './data/generated-files.js';
import type { RegenerateRunner } from './data/lockfiles.js';
import type { FileDecision } from './file-level.js';
import type { RecalledFile } from './file-recall.js';
import type { TextEncoding } from './parse/encoding.js';
import type { UnmergedEntry } from './parse/stages.js';
import type { PathRule } from './policy/path-policy.js';
import type { ResolutionRule, RuleContext } from './rules/index.js';
import type { SyntaxSwitches } from './syntax/syntax-merge.js';
import type { ConflictedFile, ConflictHunk, HunkResolution } from './types.js';

/**
 * The hook for the rungs after the rules (the LLM resolver, a prompt to the person):
 * given the file and the hunks still open, it returns resolutions for the hunks
 * it could resolve (`hunkIndex` set) and leaves the others out.
 */
export type LadderFallback = (file: ConflictedFile, hunks: ConflictHunk[]) => Promise<HunkResolution[]>;

export interface LadderOptions {
  /** The file's path (for rules, logs and cache provenance). */
  path: string;
  /** Rules to try; default: the rules enabled by default. */
  rules?: readonly ResolutionRule[];
  /** The cache rung; null or omitted = no cache. */
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
   * both for every hunk; `person` leaves every hunk to the person (only this clone's person's own
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

export interface WorkingTreeOptions {
  /** Paths relative to the top level; empty = every unmerged path. */
  paths?: string[];
  /** The working tree's top-level directory, when the caller knows it (default: asked of git). */
  top?: string;
  /** The unmerged entries, when the caller has just listed them (`listUnmerged`); `paths` is then ignored. */
  unmerged?: UnmergedEntry[];
  rules?: readonly ResolutionRule[];
  cache?: ResolutionCache | null;
  fallback?: LadderFallback;
  /** The syntax-aware rung's switches (`LadderSetup.syntax`); default off. */
  syntax?: SyntaxSwitches;
  /** `resolve.regenerate`: lockfile glob to the command that rewrites it (`LadderSetup.regenerate`). */
  regenerate?: Readonly<Record<string, string>>;
  /** Runs a regenerate command in the worktree; without it configured lockfiles are left with a note. */
  runCommand?: RegenerateRunner;
  /** `resolve.paths` (`LadderSetup.policy`): the fork's decision per glob. */
  policy?: readonly PathRule[];
  /** A learnt suggestion taken without asking (`resolve.learnt: apply`), per path and hunk. */
  learnt?: ((path: string, hunk: ConflictHunk) => HunkResolution | null) | null;
  /**
   * Give a person's whole remembered file again where its three sides are those they resolved
   * (`file-recall.ts`). Only for a merge git has just presented: the file holds no edit of anyone's.
   */
  fileMemory?: boolean;
  /** Paths decided once for this merge, by path: every conflict on one takes the side a person took there first. */
  decidedOnce?: Readonly<Record<string, WholeFileDecision>>;
  log?: Logger;
}

export interface RemainingHunk {
  index: number;
  startLine: number;
  endLine: number;
  /** The hunk's number as the ladder saw it (stable while other hunks are resolved), and its three sides. */
  number?: number;
  sides?: { base: string | null; ours: string; theirs: string };
}

export interface WorkingTreeFileResult {
  path: string;
  /** resolved = written and staged; partial = some hunks left in markers; open = nothing resolved. */
  status: 'resolved' | 'partial' | 'open';
  resolutions: HunkResolution[];
  remaining: RemainingHunk[];
  /** The rung that settled the file whole (a file-level stage of the ladder), when one did. */
  rung?: Rung;
  /** Set for file-level conflicts (modify/delete, binary, ...). */
  decision?: FileDecision;
  /** Why the file was left alone, when it was. */
  note?: string;
  /** The `resolve.paths` rule that decided a file-level conflict (`glob: decision`), when one did. */
  policy?: string;
  /** Set for a generated file (a lockfile, pip-compile output): decided whole, never hunk by hunk. */
  generated?: GeneratedFile;
  /** Set when the person's whole remembered file (or its deletion) was given again. */
  recalled?: RecalledFile['recalled'];
  /** Set when the side decided once for this merge was taken again. */
  decidedOnce?: WholeFileDecision;
  /** Set for a submodule (a gitlink): a side is kept with `splintercat take`, not `git add`. */
  submodule?: boolean;
}

/** One conflicted path of a working tree as the file-level stages see it: read once, before any stage. */
export interface PathAtHand {
  git: Git;
  top: string;
  entry: UnmergedEntry;
  options: WorkingTreeOptions;
  /** The file in the working tree as git would store it; null when missing. */
  diskBytes: Buffer | null;
  /** The one encoding every version is read and written back with. */
  encoding: TextEncoding;
  texts: { base: string | null; ours: string | null; theirs: string | null };
  decision: FileDecision;
  policy: PathRule | null;
  generated: GeneratedFile | null;
  /** Every path handled before this one was resolved (a lockfile is regenerated only after its manifests). */
  othersResolved: boolean;
}

/** One file's hunks as the hunk-level stages see them: fixed for the whole climb (stages return answers). */
export interface HunksAtHand {
  file: ConflictedFile;
  options: LadderOptions;
  log: Logger;
  rules: readonly ResolutionRule[];
  cache: ResolutionCache | null;
  context: RuleContext;
  /** Each hunk's cache key, when a cache is in use. */
  keys: ReadonlyMap<number, string>;
  policy: PathRule | null;
  /** The policy hands the file to a person: only the policy and the person's own cached answers speak. */
  toPerson: boolean;
  /** Why the file went to a person, when the ladder found out on the way (the policy's answers do not parse). */
  note?: string;
}

/**
 * A rung that decides a path whole, before its hunks are looked at: the path's result when the
 * rung settles it (or stops the ladder there, as a policy handing it to a person does), else null.
 */
interface FileStage {
  level: 'file';
  rung: Rung;
  /** What the stage is, for logs and the reader. */
  name: string;
  settle: (at: PathAtHand) => Promise<WorkingTreeFileResult | null>;
}

/**
 * A rung on the hunks still open: its answers for those it is sure of (each with `hunkIndex`);
 * the others stay open for the next stage.
 */
interface HunkStage {
  level: 'hunk';
  rung: Rung;
  name: string;
  answer: (at: HunksAtHand, open: readonly ConflictHunk[]) => Promise<HunkResolution[]>;
  /**
   * Speaks on a path the policy hands to a person (the policy itself, a person's own cached answer).
   * Every other stage is skipped there.
   */
  onPersonPaths?: true;
  /**
   * After this stage, the answers so far (the deterministic ones) must keep the file parsing:
   * when they break it, none of them is taken and every hunk goes on open.
   */
  thenKeepsParsing?: true;
  /**
   * The fork's own decision: when its answers break the file's syntax, none is taken and the file
   * goes to a person (no later rung decides otherwise), with why.
   */
  unparsedToPerson?: true;
}

export type LadderStage = FileStage | HunkStage;
