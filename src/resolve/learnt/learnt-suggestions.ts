import type { Config } from '../../config/index.js';
import type { Git } from '../../git/index.js';
import { nullLogger, type Logger } from '../../log/logger.js';
import type { HunkSides } from '../rules/rule.js';
import { takeOfChoice } from '../take/take-command.js';
import type { ConflictHunk, HunkResolution } from '../types.js';
import { joinSides } from '../policy/path-policy.js';
import { combinedText } from './combined.js';
import { learnHistory, type LearntHistory } from './history.js';
import { strongEnough, suggestFor, type Suggestion } from './suggest.js';

/**
 * The fork's past merges as suggestions for the hunks of this merge (`resolve.learnt`):
 * read once per process (each merge replayed once per repository, then remembered), then asked
 * per hunk. `apply` turns the strong ones into resolutions without asking.
 */
export class LearntSuggestions {
  private history: LearntHistory | null = null;
  private loadedFor: string | null = null;

  constructor(
    private readonly git: Git,
    readonly settings: Config['resolve']['learnt'],
    private readonly log: Logger = nullLogger,
    /** The clock the time budget is read from. */
    private readonly now: () => number = Date.now,
  ) {}

  /** Read the history of `fork` (its branch or tip commit), unless already read for it. */
  async load(fork: string): Promise<void> {
    if (this.loadedFor === fork) return;
    const started = this.now();
    this.history = await learnHistory(this.git, fork, {
      limit: this.settings.merges,
      budgetMs: this.settings.seconds * 1000,
      now: this.now,
      onReplay: (done, total) => {
        if (done === 1 || done % 25 === 0 || done === total)
          this.log.info({ done, total }, `[learnt] replaying the fork's past merges: ${done}/${total}`);
      },
    });
    this.loadedFor = fork;
    const { merges, replayed, leftOut, hunks } = this.history;
    const conflicted = new Set(hunks.map((h) => h.merge)).size;
    const left =
      leftOut > 0
        ? `; ${leftOut} older one(s) left out when resolve.learnt.seconds (${this.settings.seconds} s) ran out, read by a later run`
        : '';
    this.log.decision(
      { merges, replayed, leftOut, ms: this.now() - started },
      `[learnt] ${merges} past merge(s) of the fork read (${replayed} replayed now): ${conflicted} had conflicts, ${hunks.length} hunk(s) to learn from${left}`,
    );
  }

  /** The suggestion for a hunk of `path`, or null (also before `load`). */
  suggest(path: string, sides: HunkSides): Suggestion | null {
    return this.history ? suggestFor(this.history.hunks, path, sides) : null;
  }

  /** With `apply`: the ladder's hook that takes a strong suggestion (rung `learnt`); else null. */
  applier(): ((path: string, hunk: ConflictHunk) => HunkResolution | null) | null {
    if (this.settings.mode !== 'apply') return null;
    return (path, hunk) => {
      const s = this.suggest(path, hunk);
      if (!s || !strongEnough(s, this.settings.threshold, this.settings.min_merges)) return null;
      return {
        text: suggestionText(hunk, s),
        rung: 'learnt',
        by: `learnt: ${s.choice} (${s.agree} of ${s.of} merges)`,
        hunkIndex: hunk.index,
      };
    };
  }
}

/** The text a suggestion writes for a hunk (as `splintercat take` would). */
export function suggestionText(hunk: Pick<ConflictHunk, 'base' | 'ours' | 'theirs'>, s: Suggestion): string {
  if (s.choice === 'combined') return s.text ?? combinedText(hunk);
  const take = takeOfChoice(s.choice);
  if (take?.choice === 'ours') return hunk.ours;
  if (take?.choice === 'theirs') return hunk.theirs;
  return take?.order === 'theirs-first' ? joinSides(hunk.theirs, hunk.ours) : joinSides(hunk.ours, hunk.theirs);
}
