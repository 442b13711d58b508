import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../../errors/index.js';
import type { ReportOutcome } from '../../checks/remote/report-check.js';
import { globalOptions, printJson, printResult } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { shortOid } from '../../util/short-oid.js';

interface CheckReportOptions {
  ref: string;
  remote: string;
  url?: string;
  logDir?: string;
  sandbox: 'auto' | 'bwrap' | 'off';
  envPassthrough: string[];
  push: boolean;
  pushOnly?: boolean;
  tokenUser: string;
  bundle?: string;
  json?: boolean;
}

/** The variable `--push-only` reads the push token from: never given to the check, never on a command line. */
const TOKEN_VARIABLE = 'SPLINTERCAT_PUSH_TOKEN';

/** `splintercat check-report --ref REF`: a CI job's half of `check.runner.remote` (run the requested check, push its result). */
export function registerCheckReport(program: Command): Command {
  return program
    .command('check-report')
    .description('in a CI job: run the check a request commit asks for and push its result (see init --ci)')
    .requiredOption(
      '--ref <ref>',
      'the request ref the job runs for (refs/splintercat/RUN/checks/ID/request or its branch)',
    )
    .option('--remote <name>', 'where the request came from and the result goes (a name or URL)', 'origin')
    .option(
      '--url <url>',
      "the job's page, where its whole log is (default: from GitHub Actions' or GitLab CI's variables)",
    )
    .option('--log-dir <dir>', "where the check's log is written (default: a directory in the system's temp)")
    .option('--sandbox <mode>', 'auto | bwrap | off, as check.sandbox', 'auto')
    .option(
      '--env-passthrough <name>',
      'a variable the check keeps although named like a secret (as check.env_passthrough; repeatable)',
      (value: string, list: string[]) => [...list, value],
      [],
    )
    .option('--no-push', 'run the check and write its result here only, not pushed (in a job without a token)')
    .option('--push-only', `push the result --no-push wrote, with the token in $${TOKEN_VARIABLE} if set`)
    .option('--token-user <user>', 'the user name the token is given with', 'oauth2')
    .option(
      '--bundle <file>',
      'with --no-push: also write the result to this git bundle; with --push-only: push it from there',
    )
    .option('--json', 'the outcome as JSON on stdout')
    .action(async (opts: CheckReportOptions, cmd: Command) => {
      if (opts.pushOnly && !opts.push)
        throw new UsageError('check_request_invalid', {
          what: '--push-only and --no-push cannot be given together',
          fix: 'Run `check-report --no-push` in the step that runs the check, then `check-report --push-only`',
        });
      const { passthroughProblem } = await import('../../checks/remote/ci-jobs.js');
      for (const name of opts.envPassthrough) {
        const why = passthroughProblem(name);
        if (why !== null)
          throw new UsageError('check_request_invalid', {
            what: `--env-passthrough ${name} is refused`,
            why,
            fix: 'Give the check only the variables it needs (an NPM_TOKEN, say), never the push token',
          });
      }
      const { Git } = await import('../../git/index.js');
      const report = await import('../../checks/remote/report-check.js');
      const global = globalOptions(cmd);
      const git = new Git({ cwd: global.cwd });
      try {
        const token = process.env[TOKEN_VARIABLE] ?? '';
        const outcome = opts.pushOnly
          ? await report.pushRecordedCheck({
              git,
              ref: opts.ref,
              remote: opts.remote,
              ...(opts.bundle !== undefined ? { source: { bundle: opts.bundle } } : {}),
              credential: token ? { user: opts.tokenUser, token } : null,
            })
          : await (opts.push ? report.reportCheck : report.recordCheck)({
              git,
              ref: opts.ref,
              remote: opts.remote,
              ...(opts.url !== undefined ? { url: opts.url || null } : {}),
              logDir: opts.logDir ?? join(tmpdir(), 'splintercat-check-logs'),
              sandbox: opts.sandbox,
              envPassthrough: opts.envPassthrough,
              ...(opts.bundle !== undefined ? { bundle: opts.bundle } : {}),
              onOutput: (chunk) => process.stderr.write(chunk),
            });
        if (opts.json) printJson(outcome);
        else printResult(describe(outcome, opts.remote));
        // The job's own status says how the check went, as a CI page shows it; a result only
        // recorded says it at the push.
        process.exitCode = outcome.status === 'reported' && !outcome.record.success ? ExitCode.Failed : ExitCode.Done;
      } finally {
        git.close();
      }
    });
}

function describe(outcome: ReportOutcome, remote: string): string {
  switch (outcome.status) {
    case 'reported':
      return `Check '${outcome.record.check}' ${outcome.record.success ? 'PASSED' : 'FAILED'} on ${shortOid(outcome.record.commit)}; result pushed to ${remote} (${shortOid(outcome.result)})`;
    case 'recorded':
      return `Check '${outcome.record.check}' ${outcome.record.success ? 'PASSED' : 'FAILED'} on ${shortOid(outcome.record.commit)}; result written to ${outcome.ref} (${shortOid(outcome.result)}) here, for check-report --push-only`;
    case 'withdrawn':
      return `The request for '${outcome.check}' was withdrawn: nothing to run or report`;
    case 'already':
      return `A result for '${outcome.check}' is already on ${remote}: nothing to report`;
  }
}
