import type { ToolContext } from './tool-context.js';
import { limits } from './tool-context.js';

/**
 * Names that reach commits outside the merge's history by construction: the stash (whose third
 * parent holds untracked files such as `.env`) and reflog entries (`@{...}`), which keep commits a
 * branch no longer points to.
 */
const privateHistory = /@\{|(^|[/:^~])stash($|[/^~:@])|^refs\/stash/;

/** The commits whose ancestry the model may read: the cell's two sides and parents, or HEAD and MERGE_HEAD. */
async function tips(ctx: ToolContext): Promise<string[]> {
  const d = ctx.details;
  if (d) return [d.commit1.oid, d.commit2.oid, d.above, d.left];
  const out: string[] = [];
  for (const name of ['HEAD', 'MERGE_HEAD']) {
    const r = await ctx.git.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${name}^{commit}`], {
      okExitCodes: [0, 1, 128],
      timeoutMs: limits.gitTimeoutMs,
    });
    if (r.exitCode === 0 && r.stdout.trim() !== '') out.push(r.stdout.trim());
  }
  return out;
}

/**
 * The commit a model's ref names, when it lies in the history of the merge it resolves (an
 * ancestor of one of the tips): the model reads the two sides' history, never a stash, a reflog
 * entry, another branch or a dangling commit, whose contents (an untracked `.env`, a draft) were
 * never meant to leave this clone.
 */
export async function reachableCommit(
  ctx: ToolContext,
  ref: string,
): Promise<{ ok: true; oid: string } | { ok: false; error: string }> {
  const refused = (why: string) => ({
    ok: false as const,
    error: `"${ref}" ${why}; git_show_commit shows only commits in the history of the two sides being merged (a commit id from git_log, or a branch or tag of that history).`,
  });
  if (privateHistory.test(ref)) return refused('names the stash or a reflog entry, which is not part of the merge');
  const resolved = await ctx.git.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], {
    okExitCodes: [0, 1, 128],
    timeoutMs: limits.gitTimeoutMs,
  });
  const oid = resolved.stdout.trim();
  if (resolved.exitCode !== 0 || !/^[0-9a-f]{40,64}$/.test(oid)) return refused('is not a commit of this repository');
  for (const tip of await tips(ctx)) {
    const r = await ctx.git.run(['merge-base', '--is-ancestor', oid, tip], {
      okExitCodes: [0, 1, 128],
      timeoutMs: limits.gitTimeoutMs,
    });
    if (r.exitCode === 0) return { ok: true, oid };
  }
  return refused('is not in the history of the two sides being merged');
}
