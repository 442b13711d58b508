import { cellId } from '../../imerge/cell.js';
import type { GridEngine, ResolutionApprover } from '../ports.js';
import type { CellResolution } from '../resolve-cell.js';
import type { Rung } from '../../store/rung.js';
import type { Ctx } from './common.js';

type Resolved = Extract<CellResolution, { ok: true }>;

/** The rungs whose answers the summary names with their author (`rule (one-side-unchanged)`); the others by rung alone. */
const NAMES_AUTHOR: Record<Rung, boolean> = {
  cache: false,
  policy: false,
  generated: false,
  rule: true,
  syntax: false,
  learnt: false,
  model: true,
  person: false,
};

/**
 * The interactive part of the resolve node (`--interactive`): each resolution shown to the person
 * before it is recorded. A run without it has the no-op one, which approves every resolution.
 */
export interface Approval {
  /**
   * True when the person answers each resolution, maybe much later: what is decided is recorded
   * before the next is asked, so a stop in between loses no answer.
   */
  readonly oneByOne: boolean;
  /** The resolution as proposed, or, declined, the conflict presented again for a person. */
  review(outcome: Resolved): Promise<CellResolution>;
}

const approveAll: Approval = { oneByOne: false, review: (outcome) => Promise.resolve(outcome) };

/** The person's approval under `--interactive`, else the no-op one. */
export function approval(ctx: Ctx, engine: GridEngine): Approval {
  const approver = ctx.approver;
  if (!approver) return approveAll;
  return { oneByOne: true, review: (outcome) => approved(ctx, engine, approver, outcome) };
}

/**
 * `--interactive`: show the resolution to the person before it is recorded. A declined one is
 * presented again as a plain conflict in its worktree and handed to the person.
 */
async function approved(
  ctx: Ctx,
  engine: GridEngine,
  approver: ResolutionApprover,
  outcome: Resolved,
): Promise<CellResolution> {
  const id = cellId(outcome.cell);
  const details = await engine.conflictCell(outcome.cell);
  const paths = outcome.files.map((f) => f.path);
  const against = async (side: string, label: string): Promise<string> => {
    const text =
      paths.length > 0
        ? await ctx.git.text(['diff', '--no-color', '--no-ext-diff', side, outcome.tree, '--', ...paths])
        : '';
    return `Against ${label}:\n${text || '(identical)'}\n`;
  };
  const diff = (await against(details.above, 'the fork side')) + (await against(details.left, 'the upstream side'));
  const summary = outcome.files.map(
    (f) =>
      `${f.path}: ${f.hunks.map((h) => `hunk ${h.index} by ${h.rung !== null && NAMES_AUTHOR[h.rung] ? `${h.rung} (${h.by})` : h.rung}`).join(', ') || `${f.kind} decision`}`,
  );
  if (await approver.approveResolution({ conflict: id, summary, diff })) return outcome;
  ctx.journal.append({
    type: 'decision',
    kind: 'resolution',
    by: 'person',
    decision: 'declined',
    reasoning: `The resolution of ${id} was declined in --interactive mode`,
    conflicts: [id],
  });
  ctx.log.decision({ cell: id }, `[person] Declined the resolution of ${id}: left to the person`);
  const { path, unmerged } = await ctx.worktrees.presentMerge(
    ctx.worktrees.conflictId(outcome.cell),
    details.above,
    details.left,
  );
  const files = outcome.files.map((f) => ({
    ...f,
    hunks: f.hunks.map((h) => ({ ...h, status: 'needs_person' as const, rung: null, by: null, cacheKey: null })),
  }));
  const handoff = outcome.files.map((f) => ({
    path: f.path,
    kind: f.kind,
    ...(f.hunks.length > 0 ? { hunks: f.hunks.length } : {}),
    instructions: `the resolution of ${f.path} was declined: edit ${f.path} (remove every marker line), or settle it with git add / git rm`,
  }));
  return {
    ok: false,
    cell: outcome.cell,
    worktree: path,
    files,
    left: unmerged.length > 0 ? unmerged : paths,
    handoff,
    choiceKeys: [],
  };
}
