import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { globalOptions, printJson, printResult } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { shortOid } from '../../util/short-oid.js';

interface CheckReportOptions {
  ref: string;
  remote: string;
  url?: string;
  logDir?: string;
  sandbox: 'auto' | 'bwrap' | 'off';
  json?: boolean;
}

/** `splintercat check-report --ref REF`: a CI job's half of `check.runner.remote` (run the requested check, push its result). */
export function registerCheckReport(program: Command): Command {
  return program
    .command('check-report')
    .description('in a CI job: run the check a request commit asks for and push its result (see init --ci)')
    .requiredOption(
      '--ref <ref>',
      'the request ref the job runs for (refs/splintercat/RUN/checks/ID/request or its branch)',
    )
    .option('--remote <name>', 'where the request came from and the result goes', 'origin')
    .option(
      '--url <url>',
      "the job's page, where its whole log is (default: from GitHub Actions' or GitLab CI's variables)",
    )
    .option('--log-dir <dir>', "where the check's log is written (default: a directory in the system's temp)")
    .option('--sandbox <mode>', 'auto | bwrap | off, as check.sandbox', 'auto')
    .option('--json', 'the outcome as JSON on stdout')
    .action(async (opts: CheckReportOptions, cmd: Command) => {
      const { Git } = await import('../../git/index.js');
      const { reportCheck } = await import('../../checks/remote/report-check.js');
      const global = globalOptions(cmd);
      const git = new Git({ cwd: global.cwd });
      try {
        const outcome = await reportCheck({
          git,
          ref: opts.ref,
          remote: opts.remote,
          ...(opts.url !== undefined ? { url: opts.url || null } : {}),
          logDir: opts.logDir ?? join(tmpdir(), 'splintercat-check-logs'),
          sandbox: opts.sandbox,
          onOutput: (chunk) => process.stderr.write(chunk),
        });
        if (opts.json) printJson(outcome);
        else if (outcome.status === 'reported')
          printResult(
            `Check '${outcome.record.check}' ${outcome.record.success ? 'PASSED' : 'FAILED'} on ${shortOid(outcome.record.commit)}; result pushed to ${opts.remote} (${shortOid(outcome.result)})`,
          );
        else if (outcome.status === 'withdrawn')
          printResult(`The request for '${outcome.request.check}' was withdrawn: nothing to run`);
        else printResult(`A result for '${outcome.request.check}' is already on ${opts.remote}: nothing to report`);
        // The job's own status says how the check went, as a CI page shows it.
        process.exitCode = outcome.status === 'reported' && !outcome.record.success ? ExitCode.Failed : ExitCode.Done;
      } finally {
        git.close();
      }
    });
}
