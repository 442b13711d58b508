import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { SplintercatError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import type { ReportModel } from '../../report/index.js';
import type { RunStore } from '../../store/index.js';
import { configRequest, globalOptions, printJson, printResult } from '../context.js';

interface ReportOptions {
  name?: string;
  html?: string;
  /** A file, or true for `--md` alone: Markdown on stdout. */
  md?: string | true;
}

/** The run's view model, or an actionable error when the run has no state. */
export async function loadReportModel(git: Git, store: RunStore, name: string): Promise<ReportModel> {
  const { buildReportModel, loadRunSnapshot } = await import('../../report/index.js');
  const snapshot = await loadRunSnapshot(git, store, name);
  if (!snapshot) {
    throw new SplintercatError('run_state_missing', {
      what: `There is no run state for the merge '${name}'`,
      why: 'The merge never started here, or its state was removed (abort)',
      fix: [`Check the name: splintercat doctor --name ${name}`, 'or start one: splintercat merge SOURCE'],
      where: store.paths(name).state,
    });
  }
  return buildReportModel(snapshot, { now: new Date() });
}

function writeReport(file: string, text: string, kind: string): string {
  const path = resolve(file);
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw new SplintercatError('report_write_failed', {
      what: `The ${kind} report could not be written to ${path}`,
      why: error instanceof Error ? error.message : String(error),
      fix: 'Choose a writable path (its directory must exist)',
      where: path,
      cause: error,
    });
  }
  return path;
}

/** `splintercat report [--html FILE] [--md FILE]`: the full account of a run (Markdown on stdout without options). */
export function registerReport(program: Command): Command {
  return program
    .command('report')
    .description('write the full account of a run as HTML or Markdown (Markdown on stdout by default)')
    .option('--name <name>', 'the merge (default: imerge.name or the only one)')
    .option('--html <file>', 'write one self-contained HTML file (opens from file://, fetches nothing)')
    .option('--md [file]', 'write Markdown for a pull request description (no file: on stdout)')
    .action(async (opts: ReportOptions, cmd: Command) => {
      const { configFor } = await import('../../workflow/config-for.js');
      const { renderHtmlReport, renderMarkdownReport } = await import('../../report/index.js');
      const global = globalOptions(cmd);
      const { git, store, name } = await configFor.run({
        ...configRequest(global),
        name: opts.name,
        runRequired: true,
        configRequired: false,
      });
      try {
        const model = await loadReportModel(git, store, name as string);
        if (global.json) {
          printJson(model);
          return;
        }
        const written: string[] = [];
        if (opts.html) written.push(`HTML report: ${writeReport(opts.html, renderHtmlReport(model), 'HTML')}`);
        if (typeof opts.md === 'string')
          written.push(`Markdown report: ${writeReport(opts.md, renderMarkdownReport(model), 'Markdown')}`);
        printResult(written.length > 0 ? written.join('\n') : renderMarkdownReport(model));
      } finally {
        git.close();
      }
    });
}
