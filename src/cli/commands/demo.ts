import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { globalOptions, printResult } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { loadReportModel } from './report.js';

/** `splintercat demo`: a sample fork/upstream pair in a temp dir, merged offline end to end. */
export function registerDemo(program: Command): Command {
  return program
    .command('demo')
    .description('build a sample fork/upstream pair in a temp dir and merge it, offline')
    .option('--dir <dir>', 'build the sample here instead of a new temporary directory')
    .action(async (opts: { dir?: string }, cmd: Command) => {
      const { configFor } = await import('../../workflow/config-for.js');
      const { Git } = await import('../../git/index.js');
      const { renderHtmlReport } = await import('../../report/index.js');
      const { RunStore } = await import('../../store/index.js');
      const { startMerge } = await import('../merge-session.js');
      const { buildDemoRepo } = await import('../../workflow/demo/demo-repo.js');
      const global = globalOptions(cmd);
      const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'splintercat-demo-'));
      const demo = await buildDemoRepo(dir);
      process.stderr.write(
        `Built a sample repository in ${dir}:\n` +
          `  main      the fork, ${demo.forkCommits} commits ahead (a rounding fix, isEmpty(), discounts, docs, money formatting)\n` +
          `  upstream  ${demo.upstreamCommits} commits (the same fix and isEmpty() indented differently, a renamed guide, a changelog, percent())\n` +
          `  checks    build: ${demo.checks.build}   test: ${demo.checks.test}\n\n`,
      );
      // Offline on purpose: no model settings from the environment reach the demo.
      const { config, stored } = await configFor.newMerge({
        cwd: dir,
        configPath: writeDemoConfig(dir, demo.checks),
        sets: [],
        env: {},
      });
      const code = await startMerge(
        { ...global, cwd: dir },
        config,
        'upstream',
        { into: 'main', name: 'demo' },
        stored,
      );
      if (code === ExitCode.Done) {
        const report = join(dir, 'splintercat-report.html');
        const git = new Git({ cwd: dir });
        try {
          writeFileSync(report, renderHtmlReport(await loadReportModel(git, await RunStore.forRepo(git), 'demo')));
        } finally {
          git.close();
        }
        // Started through npx from a clone (the README's way), neither `splintercat` nor `npx splintercat` runs
        // outside the clone: print the command that runs this CLI from anywhere.
        const { cliInvocation } = await import('../invocation.js');
        const invocation = cliInvocation();
        const name = invocation.command;
        const cli = `${name} -C ${dir} --config ${join(dir, '.git', 'splintercat-demo.yaml')}`;
        printResult(
          [
            '',
            `The report:       ${report}   (open it in a browser; or: ${cli} ui)`,
            `See the run:      ${cli} status`,
            `The merge commit: git -C ${dir} log --graph --oneline -12`,
            `Decisions log:    ${join(dir, '.splintercat', 'logs', 'decisions.log')}`,
            '',
            'On your own repository:',
            `  cd your-fork && ${name} init        # then set check.commands (build, test) and, optionally, llm.*`,
            `  ${name} merge upstream/main --into your-branch`,
            ...(invocation.onPath || invocation.packageRoot === null
              ? []
              : ['', `To type just \`splintercat\`: npm install --global ${invocation.packageRoot}`]),
          ].join('\n'),
        );
      }
      process.exitCode = code;
    });
}

/** The demo's own configuration file, in its repository's `.git` (out of the merge): its path. */
function writeDemoConfig(dir: string, checks: { build: string; test: string }): string {
  const path = join(dir, '.git', 'splintercat-demo.yaml');
  const lines = ['target:', `  workdir: ${dir}`, '  branch: main', 'check:', '  commands:'];
  lines.push(`    build: ${checks.build}`, `    test: ${checks.test}`, 'imerge:', '  name: demo', '');
  writeFileSync(path, lines.join('\n'));
  return path;
}
