import { readFile } from 'node:fs/promises';
import { tool } from 'ai';
import * as z from 'zod';
import { GitError } from '../../git/index.js';
import { reachableCommit } from './reachable-commit.js';
import { asData, bound, limits, type ToolContext } from './tool-context.js';
import { cellId } from '../../imerge/cell.js';
import { shortOid } from '../../util/short-oid.js';

/** A ref the model names: no options, no path tricks, short. */
const safeRef = /^(?!-)[A-Za-z0-9_./~^@{}:-]{1,200}$/;

function gitFailure(e: unknown): string {
  if (e instanceof GitError || (e instanceof Error && 'stderr' in e))
    return `Error: git failed: ${String((e as { stderr?: string }).stderr ?? e.message)
      .trim()
      .slice(0, 500)}`;
  return `Error: ${e instanceof Error ? e.message : String(e)}`;
}

/** Keep the first and last `n` lines of a long diff: its head and tail say most about what changed. */
function clipLines(text: string, n: number): string {
  const lines = text.split('\n');
  if (lines.length <= 2 * n) return text;
  return [...lines.slice(0, n), `[... ${lines.length - 2 * n} lines omitted ...]`, ...lines.slice(-n)].join('\n');
}

/** git_show_commit: the commit's message and its diff (of one file when given), as bounded data. */
async function showCommit(
  ctx: ToolContext,
  { ref, file }: { ref: string; file?: string | undefined },
): Promise<string> {
  if (!safeRef.test(ref)) return `Error: "${ref}" is not a commit id or ref name.`;
  const commit = await reachableCommit(ctx, ref).catch((e: unknown) => ({
    ok: false as const,
    error: gitFailure(e).replace(/^Error: /, ''),
  }));
  if (!commit.ok) return `Error: ${commit.error}`;
  const args = [
    'show',
    '--no-color',
    '--no-ext-diff',
    '--format=Commit: %H%nAuthor: %an <%ae>%nDate: %ad%n%nMessage:%n%w(0,4,4)%B',
    '--date=short',
    commit.oid,
  ];
  if (file !== undefined) {
    const p = await ctx.sandbox.forRead(file);
    if (!p.ok) return `Error: ${p.error}`;
    args.push('--', p.rel);
  }
  try {
    const out = await ctx.git.text(args, { timeoutMs: limits.gitTimeoutMs });
    const at = out.indexOf('\ndiff --git');
    const head = at < 0 ? out : out.slice(0, at);
    const diff = at < 0 ? '' : out.slice(at + 1);
    const label = file !== undefined ? `changes in ${file}` : 'changes';
    // Commit messages and diffs are others' words: data, bounded before it is wrapped.
    const text = `${head.trimEnd()}\n\n${diff ? clipLines(diff, limits.diffLines) : '(no changes shown)'}`;
    return `Commit ${ref} (message and ${label}):\n${asData(ctx, `commit ${ref}`, bound(text, limits.toolChars - 300))}`;
  } catch (e) {
    return gitFailure(e);
  }
}

/** git_log: recent commits, one line each, of one file when given. */
async function gitLog(
  ctx: ToolContext,
  { file, max_count }: { file?: string | undefined; max_count: number },
): Promise<string> {
  const n = Math.min(max_count, limits.logCount);
  const args = ['log', '--oneline', '--no-color', `--max-count=${n}`];
  if (file !== undefined) {
    const p = await ctx.sandbox.forRead(file);
    if (!p.ok) return `Error: ${p.error}`;
    args.push('--', p.rel);
  }
  try {
    const lines = await ctx.git.lines(args, { timeoutMs: limits.gitTimeoutMs });
    const title = file !== undefined ? `Recent commits for ${file}:` : 'Recent commits:';
    const list = lines.map((l) => `  ${l}`).join('\n') || '  (none)';
    return `${title}\n${asData(ctx, 'git log', bound(list, limits.toolChars - 300))}${lines.length === n ? '\n(and more...)' : ''}`;
  } catch (e) {
    return gitFailure(e);
  }
}

/** git_show_commit, git_log, show_merge_summary, list_all_conflicts. */
export function repoTools(ctx: ToolContext) {
  return {
    git_show_commit: tool({
      description:
        'Show a commit of the history being merged: id, author, date, message and its diff (optionally only for one file). Use it to learn why a change was made.',
      inputSchema: z.object({ ref: z.string().describe('Commit id or ref'), file: z.string().optional() }),
      execute: async (args) => showCommit(ctx, args),
    }),
    git_log: tool({
      description: 'Recent commits (one line each), optionally only those touching one file.',
      inputSchema: z.object({ file: z.string().optional(), max_count: z.number().int().min(1).default(10) }),
      execute: async (args) => gitLog(ctx, args),
    }),
    show_merge_summary: tool({
      description: 'Overview of the whole merge: source, target, conflicts resolved and remaining.',
      inputSchema: z.object({}),
      execute: async () => {
        if (ctx.mergeSummary) return `Merge summary:\n${asData(ctx, 'merge summary', bound(ctx.mergeSummary))}`;
        const d = ctx.details;
        const files = ctx.sandbox.writableFiles();
        const facts = [
          d ? `  Ours:   ${shortOid(d.commit1.oid)} ${d.commit1.subject}` : '',
          d ? `  Theirs: ${shortOid(d.commit2.oid)} ${d.commit2.subject}` : '',
          ...files.map((f) => `    - ${f}`),
        ].filter((l) => l !== '');
        return [
          'Merge Summary:',
          d ? `  Cell ${cellId(d)} of merge ${d.name}` : '  (no merge state available: resolving a working tree)',
          `  Files with conflicts in this cell: ${files.length}`,
          asData(ctx, 'commits and files', facts.join('\n')),
        ].join('\n');
      },
    }),
    list_all_conflicts: tool({
      description: 'List every conflicted file known for this merge with the number of conflicts in each.',
      inputSchema: z.object({}),
      execute: async () => {
        if (ctx.allConflicts) return `All conflicts:\n${asData(ctx, 'all conflicts', bound(ctx.allConflicts))}`;
        const out: string[] = [];
        for (const f of ctx.sandbox.writableFiles()) {
          const p = await ctx.sandbox.forRead(f);
          const text = p.ok ? await readFile(p.abs, 'utf8').catch(() => '') : '';
          const n = (text.match(new RegExp(`^<{${ctx.markerSize}}(?: |\\r?$)`, 'gm')) ?? []).length;
          out.push(`  - ${f} (${n} conflict${n === 1 ? '' : 's'} in file)`);
        }
        const head = ctx.details ? `Conflict pair ${cellId(ctx.details)}:` : 'This conflict:';
        return `All conflicts in merge:\n\n${head}\n${asData(ctx, 'conflicted files', bound(out.join('\n')))}`;
      },
    }),
  };
}
