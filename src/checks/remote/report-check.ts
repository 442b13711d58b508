import { hostname } from 'node:os';
import type { SandboxMode } from '../../config/schema.js';
import { SplintercatError, UsageError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import { listRemoteRefs, pushRefs } from '../../git/remote-refs.js';
import type { Logger } from '../../log/logger.js';
import { CheckRunner } from '../check-runner.js';
import { parseTestFailures } from '../test-output/index.js';
import { createResultCommit } from './commits.js';
import { parseRequestMessage, parseRequestRef, type CheckRequest, type CheckResultRecord } from './protocol.js';
import { readCheckLog } from '../read-log.js';

export interface ReportCheckOptions {
  /** The job's clone, with the request commit checked out (HEAD). */
  git: Git;
  /** The request ref the job was started for (`refs/splintercat/RUN/checks/ID/request`, or its branch). */
  ref: string;
  /** Where the request came from and the result goes (default origin). */
  remote?: string;
  /** Where the job's whole log can be read; default: what the CI's environment says (GitHub Actions, GitLab CI). */
  url?: string | null;
  /** Where the check's log is written on the runner. */
  logDir: string;
  sandbox?: SandboxMode;
  /** The environment the check starts from (scrubbed of secrets) and the CI is read from. */
  env?: NodeJS.ProcessEnv;
  onOutput?: (chunk: string) => void;
  logger?: Logger;
}

export type ReportOutcome =
  | { status: 'reported'; record: CheckResultRecord; result: string }
  /** The request is no longer on the remote: nothing was run. */
  | { status: 'withdrawn'; request: CheckRequest }
  /** A result is already there (another job answered it): nothing was run, or this one's result was not needed. */
  | { status: 'already'; request: CheckRequest; result: string };

const LOG_BYTES = 64 * 1024;
const LOG_LINES = 200;

/**
 * `splintercat check-report`: the CI job's half of the protocol. Reads the request from HEAD,
 * makes sure it is still wanted, checks out the commit under test, runs the command with the
 * CheckRunner (timeout, process-group kill, secrets scrubbed, sandbox where available), names
 * the failing tests with the extractors, and pushes the result ref, created only if absent.
 */
export async function reportCheck(options: ReportCheckOptions): Promise<ReportOutcome> {
  const { git } = options;
  const remote = options.remote ?? 'origin';
  const request = await readRequest(git, options.ref);
  const refs = parseRequestRef(options.ref)?.refs;
  if (!refs) throw notARequest(options.ref, 'it is not a splintercat check request ref');
  const head = await git.text(['rev-parse', 'HEAD']);
  const known = await listRemoteRefs(git, remote, [refs.result, fullRef(options.ref)]);
  if (known === null) throw pushFailed(remote, `cannot reach ${remote}`);
  const existing = known.get(refs.result);
  if (existing !== undefined) return { status: 'already', request, result: existing };
  if (known.get(fullRef(options.ref)) !== head) return { status: 'withdrawn', request };

  await git.run(['-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', request.commit]);
  const runner = new CheckRunner({
    workdir: git.cwd,
    outputDir: options.logDir,
    commands: { [request.check]: request.command },
    timeoutSec: request.timeoutSec,
    killGraceSec: request.killGraceSec,
    ...(request.setup
      ? { setup: request.setup, setupWhen: request.setupWhen, setupNetwork: request.setupNetwork }
      : {}),
    sandbox: options.sandbox ?? 'auto',
    env: options.env ?? process.env,
    ...(options.onOutput ? { onOutput: options.onOutput } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const result = await runner.run(request.check, { cwd: git.cwd, untrusted: request.untrusted });
  // Read back never through a link the check may have put in its place.
  const log = readCheckLog(result.logFile, options.logDir);
  const env = options.env ?? process.env;
  const record: CheckResultRecord = {
    splintercat: 'check-result',
    version: request.version,
    id: request.id,
    nonce: request.nonce,
    run: request.run,
    check: request.check,
    commit: request.commit,
    success: result.success,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    tests: result.timedOut ? null : parseTestFailures(log, { cwd: git.cwd, command: request.command }),
    url: options.url ?? ciJobUrl(env),
    runner: ciRunnerName(env),
    finishedAt: new Date().toISOString(),
  };
  const commit = await createResultCommit(git, record, logEnd(log));
  const pushed = await pushRefs(git, remote, [{ ref: refs.result, newOid: commit, expect: null }]);
  if (pushed.ok) return { status: 'reported', record, result: commit };
  if (pushed.reason === 'rejected') {
    const now = await listRemoteRefs(git, remote, [refs.result]);
    return { status: 'already', request, result: now?.get(refs.result) ?? '' };
  }
  throw pushFailed(remote, pushed.stderr);
}

/** The request HEAD carries, checked against the ref the job was started for. */
async function readRequest(git: Git, ref: string): Promise<CheckRequest> {
  const parsedRef = parseRequestRef(ref);
  if (!parsedRef) throw notARequest(ref, 'it is not a splintercat check request ref');
  const message = await git.text(['log', '-1', '--format=%B', 'HEAD']);
  const request = parseRequestMessage(message);
  if (!request) throw notARequest(ref, 'HEAD is not a request commit (its message holds no check request)');
  if (request.id !== parsedRef.refs.id || request.run !== parsedRef.run)
    throw notARequest(ref, `HEAD is the request ${request.id} of run ${request.run}, not this ref's`);
  const parent = await git.revParse('HEAD^');
  if (parent !== request.commit) throw notARequest(ref, 'the commit under test (HEAD^) is not in this clone');
  return request;
}

function fullRef(ref: string): string {
  return ref.startsWith('refs/') ? ref : `refs/heads/${ref}`;
}

/** The end of the log, bounded in lines and bytes. */
function logEnd(log: string): string {
  const lines = log.split('\n');
  let end = lines.slice(-LOG_LINES - 1).join('\n');
  if (Buffer.byteLength(end) > LOG_BYTES) end = Buffer.from(end).subarray(-LOG_BYTES).toString('utf8');
  return end;
}

/** The job's page on GitHub Actions or GitLab CI, or null. */
function ciJobUrl(env: NodeJS.ProcessEnv): string | null {
  if (env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID)
    return `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`;
  return env.CI_JOB_URL || null;
}

function ciRunnerName(env: NodeJS.ProcessEnv): string {
  if (env.GITHUB_ACTIONS === 'true') return `github-actions ${env.RUNNER_NAME ?? ''}`.trim();
  if (env.GITLAB_CI === 'true') return `gitlab-ci ${env.CI_RUNNER_DESCRIPTION ?? ''}`.trim();
  return hostname();
}

function notARequest(ref: string, why: string): UsageError {
  return new UsageError('check_request_invalid', {
    what: `Cannot report a check for ${ref}`,
    why,
    fix: [
      'Run check-report in a clone whose HEAD is the request commit the ref points at, as the job',
      'definitions of `splintercat init --ci` do (a checkout of the ref with its parent: fetch depth 2)',
    ],
  });
}

function pushFailed(remote: string, stderr: string): SplintercatError {
  return new SplintercatError('check_report_failed', {
    what: `Cannot write the check result to ${remote}`,
    why: stderr.split('\n').slice(-3).join('\n') || 'the push failed',
    fix: [
      'Give the job write access to the repository (GitHub: permissions: contents: write; GitLab: a push token)',
      'Then run the job again',
    ],
  });
}
