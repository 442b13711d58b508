import type { Command } from 'commander';
import { configRequest, globalOptions, printJson, printResult } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { TerminalFilter } from '../../util/safe-print.js';

/** `splintercat check NAME`: one named check, run exactly as the workflow runs it. */
export function registerCheck(program: Command): Command {
  return program
    .command('check')
    .description('run one named check from check.commands, as the workflow does')
    .argument('<name>', 'a key of check.commands (e.g. build, test, quick)')
    .option('--json', 'the CheckResult as JSON on stdout')
    .action(async (name: string, opts: { json?: boolean }, cmd: Command) => {
      const { configFor } = await import('../../workflow/config-for.js');
      const { createCheckRunner, runBuildDir } = await import('../../checks/from-config.js');
      const [{ formatCheckResult }, { readCheckLog }, { summarizeCheckLog, summaryLine }] = await Promise.all([
        import('../../checks/format.js'),
        import('../../checks/read-log.js'),
        import('../../checks/failure-summary.js'),
      ]);
      // The run's configuration when there is a run, else the file (of the main checkout).
      const { config } = await configFor.inMerge(configRequest(globalOptions(cmd)), { check: true });
      // Its own build directory under check.build_dir (a run's is the run's own): $SPLINTERCAT_BUILD_DIR is always set there.
      const runner = createCheckRunner(config, { buildDir: runBuildDir(config, 'splintercat-check') });
      // The check's output as it prints it, but for escape sequences (clipboard, title, cursor): colours only.
      const filter = new TerminalFilter();
      const result = await runner.run(name, { onOutput: (chunk) => process.stderr.write(filter.push(chunk)) });
      process.stderr.write(filter.end());
      // The summary the workflow makes of a failure (without a model), from the log as written.
      const summary = result.success
        ? null
        : summarizeCheckLog(readCheckLog(result.logFile, config.log.dir), result, {
            cwd: config.target.workdir,
            command: result.command,
          });
      if (opts.json) printJson(summary ? { ...result, summary } : result);
      else printResult(formatCheckResult(result) + (summary ? `\nFailure: ${summaryLine(summary)}` : ''));
      process.exitCode = result.success ? ExitCode.Done : ExitCode.Failed;
    });
}
