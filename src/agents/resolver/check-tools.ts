import { readFile } from 'node:fs/promises';
import { tool } from 'ai';
import * as z from 'zod';
import type { CheckResult } from '../../checks/types.js';
import { changesSince, restoreSnapshot, type PathChange } from '../../git/worktree-snapshot.js';
import { stageTexts, validateResolvedText } from './validate.js';
import { asData, bound, limits, type ToolContext } from './tool-context.js';

/**
 * The run_check tool's output (the same PASSED / FAILED text as `splintercat check`), the check's own output given
 * to `data` to wrap (what the check printed is not ours: a line saying PASSED is data).
 */
export function formatCheckForModel(
  result: CheckResult,
  data: (label: string, text: string) => string = (_, t) => t,
): string {
  const secs = (result.durationMs / 1000).toFixed(1);
  if (result.success) return `Check '${result.name}' PASSED\n\nCompleted in ${secs} seconds\nLog: ${result.logFile}`;
  const status = result.timedOut ? 'TIMED OUT' : 'FAILED';
  return [
    `Check '${result.name}' ${status}`,
    `Returncode: ${result.exitCode ?? `killed by ${result.signal ?? 'signal'}`}`,
    `Completed in ${secs} seconds`,
    '',
    `Last ${result.tail.length} lines of output:`,
    data(`output of check ${result.name}`, bound(result.tail.join('\n'), limits.toolChars - 800)),
    '',
    `Full log: ${result.logFile}`,
  ].join('\n');
}

/** Put back what changed outside the conflict's files (a check's writes): one line saying what, or ''. */
export async function putBackOutside(ctx: Pick<ToolContext, 'git' | 'outside' | 'log'>): Promise<string> {
  const put: PathChange[] = await restoreSnapshot(ctx.git, ctx.outside);
  if (put.length === 0) return '';
  ctx.log.info({ paths: put.map((p) => p.path) }, 'files outside the conflict changed; put back');
  const shown = put.slice(0, 10).map((p) => `${JSON.stringify(p.path)} (${p.change})`);
  return `Files outside this conflict changed and were put back: ${shown.join(', ')}${put.length > 10 ? `, and ${put.length - 10} more` : ''}`;
}

/** run_check, submit_resolution. */
export function checkTools(ctx: ToolContext) {
  return {
    run_check: tool({
      description: `Run a configured validation check (build or tests) in the working directory and report PASSED or FAILED with the end of its output. Configured checks: ${ctx.runCheck?.names().join(', ') || '(none)'}.`,
      inputSchema: z.object({ check_level: z.string().describe('Name of a check from config check.commands') }),
      execute: async ({ check_level }) => {
        const names = ctx.runCheck?.names() ?? [];
        if (!ctx.runCheck || !names.includes(check_level)) {
          return `Error: check '${check_level}' is not defined. Available: ${names.join(', ') || '(none configured)'}`;
        }
        ctx.log.info({ check: check_level }, 'resolver runs a check');
        const result = await ctx.runCheck.run(check_level, {
          cwd: ctx.sandbox.root,
          untrusted: ctx.sandbox.writableFiles(),
        });
        // A check runs what the model wrote: whatever it changed outside the conflict's files does not stay.
        const putBack = await putBackOutside(ctx);
        const said = ctx.formatCheck(result, (label, text) => asData(ctx, label, text));
        return `${said}${putBack ? `\n\n${putBack}` : ''}`;
      },
    }),
    submit_resolution: tool({
      description:
        'Submit a resolved file as final. It is checked: no conflict markers, the file still parses, no other file changed. Call it once per conflicted file.',
      inputSchema: z.object({ file: z.string() }),
      execute: async ({ file }) => {
        const w = await ctx.sandbox.forWrite(file);
        if (!w.ok) return `Rejected: ${w.error}`;
        const text = await readFile(w.abs, 'utf8').catch(() => null);
        if (text === null) return `Rejected: ${w.rel} cannot be read.`;
        const problems: string[] = [];
        const v = await validateResolvedText(w.rel, text, {
          markerSize: ctx.markerSize,
          inputs: await stageTexts(ctx.git, w.rel),
        });
        if (!v.ok) problems.push(...v.problems);
        if ((await changesSince(ctx.git, ctx.outside)).length > 0)
          problems.push('files outside this conflict changed in the working directory (they are put back)');
        if (problems.length > 0) {
          await putBackOutside(ctx);
          ctx.accepted.delete(w.rel);
          return `Rejected: ${w.rel}\n${problems.map((p) => `- ${p}`).join('\n')}\nFix the file and submit again.`;
        }
        ctx.accepted.set(w.rel, text);
        const left = ctx.sandbox.writableFiles().filter((f) => !ctx.accepted.has(f));
        return `Accepted: ${w.rel}${left.length > 0 ? `\nStill to submit: ${left.join(', ')}` : '\nAll files of this conflict are resolved.'}`;
      },
    }),
  };
}
