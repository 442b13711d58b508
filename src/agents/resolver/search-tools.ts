import { tool } from 'ai';
import * as z from 'zod';
import { asData, bound, limits, type ToolContext } from './tool-context.js';

/** Group `git grep -n -C` output into matches; keep the first `max`. */
function firstMatches(out: string, max: number): { text: string; total: number } {
  const groups = out.split(/\n--\n/).filter((g) => g.trim() !== '');
  const total = out.split('\n').filter((l) => /^[^\n]*?:\d+:/.test(l)).length;
  return { text: groups.slice(0, max).join('\n--\n'), total };
}

async function grep(
  ctx: ToolContext,
  args: string[],
): Promise<{ ok: true; out: string } | { ok: false; error: string }> {
  try {
    // Exit code 1 means "no match": data, not an error.
    const r = await ctx.git.run(args, { okExitCodes: [0, 1], timeoutMs: limits.gitTimeoutMs });
    return { ok: true, out: r.stdout };
  } catch (e) {
    const stderr = (e as { stderr?: string }).stderr ?? (e as Error).message;
    return { ok: false, error: String(stderr).trim().slice(0, 400) || 'grep failed or timed out' };
  }
}

/** Drop the `path:` / `path-` prefix git puts at the start of each line. */
function stripPrefix(out: string, rel: string): string {
  return out
    .split('\n')
    .map((l) => (l.startsWith(`${rel}:`) || l.startsWith(`${rel}-`) ? l.slice(rel.length + 1) : l))
    .join('\n');
}

/** grep_codebase, grep_in_file. */
export function searchTools(ctx: ToolContext) {
  const pattern = z.string().min(1).max(500).describe('Extended regular expression');
  const contextLines = z.number().int().min(0).max(10).default(2);
  return {
    grep_codebase: tool({
      description: `Search tracked files for a regular expression (first ${limits.grepMatches} matches, with context).`,
      inputSchema: z.object({
        pattern,
        file_pattern: z.string().optional().describe('Glob such as "*.ts"'),
        context_lines: contextLines,
      }),
      execute: async ({ pattern, file_pattern, context_lines }) => {
        const args = ['grep', '-n', '-I', '--no-color', `-C${context_lines}`, '-E', '-e', pattern, '--'];
        if (file_pattern !== undefined) {
          if (
            file_pattern.startsWith('/') ||
            file_pattern.split(/[\\/]/).includes('..') ||
            file_pattern.startsWith(':')
          ) {
            return 'Error: file_pattern must be a relative glob such as "*.ts" or "src/**/*.c".';
          }
          args.push(file_pattern);
        }
        const r = await grep(ctx, args);
        if (!r.ok) return `Error: ${r.error}`;
        if (r.out.trim() === '') return `No matches for "${pattern}".`;
        const m = firstMatches(r.out, limits.grepMatches);
        return `Found ${m.total} matching lines for "${pattern}" (showing the first ${limits.grepMatches} groups):\n${asData(ctx, 'grep matches', bound(m.text, limits.toolChars - 500))}`;
      },
    }),
    grep_in_file: tool({
      description: 'Search one file for a regular expression (all matches, with context).',
      inputSchema: z.object({ file: z.string(), pattern, context_lines: contextLines }),
      execute: async ({ file, pattern, context_lines }) => {
        const p = await ctx.sandbox.forRead(file);
        if (!p.ok) return `Error: ${p.error}`;
        // --no-index: the file may be untracked or hold conflict markers; the path is already confined.
        const r = await grep(ctx, [
          'grep',
          '--no-index',
          '-n',
          '-I',
          '--no-color',
          `-C${context_lines}`,
          '-E',
          '-e',
          pattern,
          '--',
          p.rel,
        ]);
        if (!r.ok) return `Error: ${r.error}`;
        if (r.out.trim() === '') return `No matches for "${pattern}" in ${p.rel}.`;
        return `Matches for "${pattern}" in ${p.rel}:\n${asData(ctx, p.rel, bound(stripPrefix(r.out, p.rel), limits.toolChars - 500))}`;
      },
    }),
  };
}
