import { readFile, writeFile } from 'node:fs/promises';
import { tool } from 'ai';
import * as z from 'zod';
import { parseConflictText, printWithResolutions } from '../../resolve/parse/markers.js';
import type { ConflictHunk } from '../../resolve/types.js';
import { asData, bound, limits, type ToolContext } from './tool-context.js';

async function readText(
  ctx: ToolContext,
  file: string,
): Promise<{ ok: true; rel: string; abs: string; text: string } | { ok: false; error: string }> {
  const p = await ctx.sandbox.forRead(file);
  if (!p.ok) return p;
  try {
    return { ...p, text: await readFile(p.abs, 'utf8') };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return {
      ok: false,
      error:
        code === 'ENOENT'
          ? `${p.rel}: file not found`
          : code === 'EISDIR'
            ? `${p.rel} is a directory`
            : `${p.rel}: cannot read (${code ?? String(e)})`,
    };
  }
}

function numbered(lines: string[], from: number, to: number): string {
  const width = String(to).length;
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(`${String(n).padStart(width)}: ${lines[n - 1] ?? ''}`);
  return out.join('\n');
}

/** The view_conflict tool's output: file, "Conflict N of M", numbered lines with context. */
async function showConflict(
  ctx: ToolContext,
  file: string,
  num: number,
  before: number,
  after: number,
): Promise<string> {
  const r = await readText(ctx, file);
  if (!r.ok) return `Error: ${r.error}`;
  const parsed = parseConflictText(r.text, { path: r.rel, markerSize: ctx.markerSize });
  if (parsed.hunks.length === 0) return `File ${r.rel} has no conflict markers (it may be resolved already).`;
  const hunk = parsed.hunks[num - 1];
  if (!hunk)
    return `Error: conflict ${num} does not exist; ${r.rel} has ${parsed.hunks.length} conflict${parsed.hunks.length === 1 ? '' : 's'} (numbered 1-${parsed.hunks.length}).`;
  const lines = r.text.split(/\r?\n/);
  const from = Math.max(1, hunk.startLine - Math.max(0, before));
  const to = Math.min(lines.length, hunk.endLine + Math.max(0, after));
  const body = numbered(lines, from, to);
  return bound(
    `File: ${r.rel}\nConflict ${num} of ${parsed.hunks.length}\n\nLines ${from}-${to} showing:\n${asData(ctx, r.rel, body)}`,
  );
}

function hunkText(hunk: ConflictHunk, choice: 'ours' | 'theirs' | 'both'): string {
  if (choice === 'ours') return hunk.ours;
  if (choice === 'theirs') return hunk.theirs;
  return hunk.ours + hunk.theirs;
}

/** resolve_conflict: replace conflict N of a file with one side, both, or the model's text. */
async function resolveOneConflict(
  ctx: ToolContext,
  {
    file,
    conflict_num,
    choice,
    custom_text,
  }: {
    file: string;
    conflict_num: number;
    choice: 'ours' | 'theirs' | 'both' | 'custom';
    custom_text?: string | undefined;
  },
): Promise<string> {
  const w = await ctx.sandbox.forWrite(file);
  if (!w.ok) return `Error: ${w.error}`;
  const r = await readText(ctx, w.rel);
  if (!r.ok) return `Error: ${r.error}`;
  const parsed = parseConflictText(r.text, { path: r.rel, markerSize: ctx.markerSize });
  const hunk = parsed.hunks[conflict_num - 1];
  if (!hunk)
    return `Error: conflict ${conflict_num} does not exist; ${r.rel} has ${parsed.hunks.length} conflict(s) left.`;
  let text: string;
  if (choice === 'custom') {
    if (custom_text === undefined)
      return 'Error: choice "custom" needs custom_text (the text that replaces the conflict hunk).';
    if (custom_text.length > limits.writeChars)
      return `Error: custom_text too large (${custom_text.length} characters; at most ${limits.writeChars}).`;
    text = custom_text !== '' && !custom_text.endsWith('\n') ? custom_text + parsed.eol : custom_text;
  } else {
    text = hunkText(hunk, choice);
  }
  const out = printWithResolutions(parsed, new Map([[hunk.index, text]]));
  await writeFile(w.abs, out);
  ctx.accepted.delete(w.rel);
  const left = parsed.hunks.length - 1;
  ctx.log.debug({ file: w.rel, conflict: conflict_num, choice }, 'resolve_conflict');
  return `Resolved conflict ${conflict_num} in ${w.rel}\nChoice: ${choice}\n${left === 0 ? 'No conflicts left in this file; call submit_resolution when you are sure.' : `${left} conflict(s) left in this file (renumbered from 1).`}`;
}

/** read_file: numbered lines of a repository file, at most `limits.readLines` per call. */
async function readFileLines(
  ctx: ToolContext,
  { file, start_line, end_line }: { file: string; start_line: number; end_line?: number | undefined },
): Promise<string> {
  const r = await readText(ctx, file);
  if (!r.ok) return `Error: ${r.error}`;
  const lines = r.text.split(/\r?\n/);
  const to = Math.min(lines.length, end_line ?? start_line + limits.readLines - 1, start_line + limits.readLines - 1);
  if (start_line > lines.length) return `Error: ${r.rel} has only ${lines.length} lines.`;
  const more = to < lines.length ? `\n(${lines.length - to} more lines; call again with start_line=${to + 1})` : '';
  return bound(
    `File: ${r.rel} (lines ${start_line}-${to} of ${lines.length})\n${asData(ctx, r.rel, numbered(lines, start_line, to))}${more}`,
  );
}

/** view_conflict, view_more_context, resolve_conflict, read_file, write_file. */
export function conflictTools(ctx: ToolContext) {
  const fileArg = z.string().describe('Path relative to the repository root');
  return {
    view_conflict: tool({
      description: 'Show conflict number N (1-based) of a file with surrounding lines, numbered.',
      inputSchema: z.object({
        file: fileArg,
        conflict_num: z.number().int().min(1),
        context_lines: z.number().int().min(0).max(200).default(10),
      }),
      execute: async ({ file, conflict_num, context_lines }) =>
        showConflict(ctx, file, conflict_num, context_lines, context_lines),
    }),
    view_more_context: tool({
      description: 'Like view_conflict with explicit numbers of lines before and after the conflict.',
      inputSchema: z.object({
        file: fileArg,
        conflict_num: z.number().int().min(1),
        before: z.number().int().min(0).max(1000),
        after: z.number().int().min(0).max(1000),
      }),
      execute: async ({ file, conflict_num, before, after }) => showConflict(ctx, file, conflict_num, before, after),
    }),
    resolve_conflict: tool({
      description:
        'Resolve conflict N of a file: "ours" keeps our side (HEAD), "theirs" keeps the incoming side, "both" keeps ours then theirs, "custom" replaces the whole conflict hunk with custom_text. Remaining conflicts are renumbered.',
      inputSchema: z.object({
        file: fileArg,
        conflict_num: z.number().int().min(1),
        choice: z.enum(['ours', 'theirs', 'both', 'custom']),
        custom_text: z
          .string()
          .optional()
          .describe('Required when choice is "custom": the text replacing the conflict hunk'),
      }),
      execute: async (args) => resolveOneConflict(ctx, args),
    }),
    read_file: tool({
      description: `Read a file of the repository (numbered lines; at most ${limits.readLines} lines per call).`,
      inputSchema: z.object({
        file: fileArg,
        start_line: z.number().int().min(1).default(1),
        end_line: z.number().int().min(1).optional(),
      }),
      execute: async (args) => readFileLines(ctx, args),
    }),
    write_file: tool({
      description:
        'Replace the whole content of one of the conflicted files of this conflict (no other file may be written).',
      inputSchema: z.object({ file: fileArg, content: z.string() }),
      execute: async ({ file, content }) => {
        const w = await ctx.sandbox.forWrite(file);
        if (!w.ok) return `Error: ${w.error}`;
        if (content.length > limits.writeChars) return `Error: content too large (${content.length} characters).`;
        await writeFile(w.abs, content);
        ctx.accepted.delete(w.rel);
        return `Wrote ${w.rel} (${content.split('\n').length} lines). Call submit_resolution when it is final.`;
      },
    }),
  };
}
