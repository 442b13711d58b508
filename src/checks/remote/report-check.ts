import { hostname } from 'node:os';
import type { SandboxMode } from '../../config/schema.js';
import { SplintercatError, UsageError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import { listRemoteRefs, pushRefs } from '../../git/remote-refs.js';
import type { Logger } from '../../log/logger.js';
import { OBJECT_LIMITS } from '../../git/object-limits.js';
import { knownSecrets, registerSecrets } from '../../util/secret-registry.js';
import { CheckRunner } from '../check-runner.js';
import { parseTestFailures } from '../test-output/index.js';
import { jobTokenValues } from './ci-jobs.js';
import { createResultCommit } from './commits.js';
import { pushTarget, withPushGit, type PushCredential, type ResultSource } from './job-push.js';
import {
  LOG_FILE,
  RESULT_FILE,
  parseRequestMessage,
  parseRequestRef,
  parseResultRecord,
  resultProblem,
  signedRecord,
  type CheckRefs,
  type CheckRequest,
  type CheckResultRecord,
} from './protocol.js';
import { readCheckLog } from '../read-log.js';
import { resultKey } from './result-key.js';

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
  /**
   * Variables of the job's environment the check keeps although named like secrets (a request's
   * `${NAME}`, which the check's shell expands); their values are still redacted from its log.
   */
  envPassthrough?: readonly string[];
  /** The environment the check starts from (scrubbed of secrets) and the CI is read from. */
  env?: NodeJS.ProcessEnv;
  onOutput?: (chunk: string) => void;
  logger?: Logger;
}

export type ReportOutcome =
  | { status: 'reported'; record: CheckResultRecord; result: string }
  /** Run and written to the local ref `ref` of the job's clone, not pushed (`recordCheck`). */
  | { status: 'recorded'; record: CheckResultRecord; result: string; ref: string }
  /** The request is no longer on the remote: nothing was run (or pushed). */
  | { status: 'withdrawn'; check: string }
  /** A result is already there (another job answered it): nothing was run, or this one's result was not needed. */
  | { status: 'already'; check: string; result: string };

const LOG_BYTES = 64 * 1024;
const LOG_LINES = 200;

/**
 * `splintercat check-report`: the CI job's half of the protocol, in one go where the job holds no
 * token (the hook job of a bare repository): reads the request from HEAD, makes sure it is still
 * wanted, runs it (`runRequested`), and pushes the result ref, created only if absent. With
 * SPLINTERCAT_RESULT_KEY in the job's environment the result is signed with it, after the check
 * ran (in its sandbox, without the key in its environment).
 */
export async function reportCheck(options: ReportCheckOptions): Promise<ReportOutcome> {
  const { git } = options;
  const remote = options.remote ?? 'origin';
  const key = resultKey(options.env ?? process.env);
  const { request, refs } = await readRequest(git, options.ref);
  const head = await git.text(['rev-parse', 'HEAD']);
  const known = await listRemoteRefs(git, remote, [refs.result, fullRef(options.ref)]);
  if (known === null) throw pushFailed(remote, `cannot reach ${remote}`);
  const existing = known.get(refs.result);
  if (existing !== undefined) return { status: 'already', check: request.check, result: existing };
  if (known.get(fullRef(options.ref)) !== head) return { status: 'withdrawn', check: request.check };
  const { record, commit } = await runRequested(options, request, key);
  return pushResult(git, remote, refs, record, commit);
}

/**
 * `check-report --no-push`: the half of a job that holds no token. Runs the request HEAD carries
 * and writes the result commit to the clone's own result ref, and to `bundle` when given (for a
 * job of its own that pushes it); the remote is not asked (a private one could not be without a
 * token).
 */
export async function recordCheck(options: ReportCheckOptions & { bundle?: string }): Promise<ReportOutcome> {
  const { git } = options;
  const { request, refs } = await readRequest(git, options.ref);
  const { record, commit } = await runRequested(options, request, null);
  await git.run(['update-ref', '--no-deref', refs.result, commit]);
  if (options.bundle !== undefined) await git.run(['bundle', 'create', '--quiet', options.bundle, refs.result]);
  return { status: 'recorded', record, result: commit, ref: refs.result };
}

/**
 * `check-report --push-only`: the half of a job with the token. Pushes the result `recordCheck`
 * wrote (in this clone, or in `source.bundle`), from a repository of its own (job-push.ts),
 * unless the request was withdrawn or answered meanwhile. The result comes from where the check
 * ran: it is read as data, within its size limit, and must answer the request the remote holds at
 * the ref; with SPLINTERCAT_RESULT_KEY (which only this half of the job has) it is signed here.
 */
export async function pushRecordedCheck(options: {
  git: Git;
  ref: string;
  remote?: string;
  source?: ResultSource;
  credential?: PushCredential | null;
  env?: NodeJS.ProcessEnv;
}): Promise<ReportOutcome> {
  const { git } = options;
  const parsedRef = parseRequestRef(options.ref);
  if (!parsedRef) throw notARequest(options.ref, 'it is not a splintercat check request ref');
  const { refs, run } = parsedRef;
  const source = options.source ?? { clone: true };
  const key = resultKey(options.env ?? process.env);
  const target = await pushTarget(git, options.remote ?? 'origin');
  return withPushGit(git, source, refs.result, options.credential ?? null, async (push) => {
    const where = 'bundle' in source ? source.bundle : 'this clone';
    const recorded = await readRecorded(push, refs.result);
    if (recorded === null)
      throw notARequest(options.ref, `no result of it is recorded in ${where} (${refs.result})`, NO_RECORD_FIX);
    const { record } = recorded;
    if (record.id !== refs.id || record.run !== run)
      throw notARequest(options.ref, `the result recorded in ${where} is for ${record.id} of run ${record.run}`);
    const known = await listRemoteRefs(push, target, [refs.result, fullRef(options.ref)]);
    if (known === null) throw pushFailed(target, `cannot reach ${target}`);
    const existing = known.get(refs.result);
    if (existing !== undefined) return { status: 'already', check: record.check, result: existing };
    if (!known.has(fullRef(options.ref))) return { status: 'withdrawn', check: record.check };
    const asked = await remoteRequest(push, target, options.ref);
    if (asked === null) return { status: 'withdrawn', check: record.check };
    // The check must have run the request the remote holds now, not one rewritten since.
    const problem =
      resultProblem(asked.request, record) ??
      (record.requestCommit === asked.commit
        ? null
        : `it ran the request commit ${record.requestCommit ?? '(none named)'}, not ${asked.commit}`);
    if (problem !== null)
      throw notARequest(options.ref, `the result recorded in ${where} does not answer the request: ${problem}`);
    if (key === null) return pushResult(push, target, refs, record, recorded.commit);
    const signed = signedRecord(record, key);
    return pushResult(push, target, refs, signed, await createResultCommit(push, signed, recorded.log));
  });
}

/** The result commit at `ref` of `git`, its record and log each read within its size limit; null when there is none that reads. */
async function readRecorded(
  git: Git,
  ref: string,
): Promise<{ commit: string; record: CheckResultRecord; log: string } | null> {
  const commit = await git.revParse(`${ref}^{commit}`);
  if (commit === null) return null;
  const json = await git.readBlobCapped(`${commit}:${RESULT_FILE}`, OBJECT_LIMITS.checkResult);
  const log = await git.readBlobCapped(`${commit}:${LOG_FILE}`, OBJECT_LIMITS.checkLog);
  if (!json.ok || (!log.ok && log.reason !== 'missing')) return null;
  const parsed = parseResultRecord(json.text);
  return parsed.ok ? { commit, record: parsed.record, log: log.ok ? log.text : '' } : null;
}

/**
 * The request the remote holds at `ref`, fetched alone (depth 1: none of the tree under test) and
 * its commit read within a size limit; null when it is gone or carries no request.
 */
async function remoteRequest(
  git: Git,
  remote: string,
  ref: string,
): Promise<{ request: CheckRequest; commit: string } | null> {
  const local = 'refs/splintercat-job/request';
  const fetched = await git.run(
    ['fetch', '--quiet', '--no-tags', '--depth=1', '--', remote, `+${fullRef(ref)}:${local}`],
    {
      okExitCodes: [0, 1, 128],
    },
  );
  if (fetched.exitCode !== 0) return null;
  const read = await git.readCapped(local, { type: 'commit', maxBytes: OBJECT_LIMITS.checkResult });
  if (!read.ok) return null;
  try {
    const request = parseRequestMessage(read.object.content.toString('utf8'));
    return request === null ? null : { request, commit: read.object.oid };
  } catch {
    return null;
  }
}

/** Check out the commit under test (the request commit's parent), run the check, and write its result commit. */
async function runRequested(
  options: ReportCheckOptions,
  request: CheckRequest,
  key: string | null,
): Promise<{ record: CheckResultRecord; commit: string }> {
  const { git } = options;
  const env = options.env ?? process.env;
  // The job's own tokens are secrets to the check: scrubbed with every variable holding one
  // (GitLab's CI_REPOSITORY_URL holds its job token), and redacted from its log.
  const tokens = jobTokenValues(env);
  registerSecrets(tokens);
  const given = passthrough(env, options.envPassthrough ?? []);
  const requestCommit = await git.text(['rev-parse', 'HEAD']);
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
    env,
    ...given,
    secrets: [...('secrets' in given ? given.secrets : []), ...tokens, ...knownSecrets()],
    ...(options.onOutput ? { onOutput: options.onOutput } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const result = await runner.run(request.check, { cwd: git.cwd, untrusted: request.untrusted });
  // Read back never through a link the check may have put in its place.
  const log = readCheckLog(result.logFile, options.logDir);
  const made: CheckResultRecord = {
    splintercat: 'check-result',
    version: request.version,
    id: request.id,
    nonce: request.nonce,
    requestCommit,
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
  const record = key === null ? made : signedRecord(made, key);
  const commit = await createResultCommit(git, record, logEnd(log));
  return { record, commit };
}

/** Push the result ref, created only if absent: a result already there is the answer. */
async function pushResult(
  git: Git,
  remote: string,
  refs: CheckRefs,
  record: CheckResultRecord,
  commit: string,
): Promise<ReportOutcome> {
  const pushed = await pushRefs(git, remote, [{ ref: refs.result, newOid: commit, expect: null }]);
  if (pushed.ok) return { status: 'reported', record, result: commit };
  if (pushed.reason === 'rejected') {
    const now = await listRemoteRefs(git, remote, [refs.result]);
    return { status: 'already', check: record.check, result: now?.get(refs.result) ?? '' };
  }
  throw pushFailed(remote, pushed.stderr);
}

/** The check's options for the variables it keeps: kept in its environment, their values redacted from its output. */
function passthrough(
  env: NodeJS.ProcessEnv,
  names: readonly string[],
): { envPassthrough: readonly string[]; secrets: string[] } | Record<string, never> {
  if (names.length === 0) return {};
  const values = names.map((n) => env[n]).filter((v): v is string => typeof v === 'string' && v.length >= 8);
  return { envPassthrough: names, secrets: values };
}

/** The request HEAD carries, checked against the ref the job was started for, and that ref's refs. */
async function readRequest(git: Git, ref: string): Promise<{ request: CheckRequest; refs: CheckRefs }> {
  const parsedRef = parseRequestRef(ref);
  if (!parsedRef) throw notARequest(ref, 'it is not a splintercat check request ref');
  const message = await git.text(['log', '-1', '--format=%B', 'HEAD']);
  const request = parseRequestMessage(message);
  if (!request) throw notARequest(ref, 'HEAD is not a request commit (its message holds no check request)');
  if (request.id !== parsedRef.refs.id || request.run !== parsedRef.run)
    throw notARequest(ref, `HEAD is the request ${request.id} of run ${request.run}, not this ref's`);
  const parent = await git.revParse('HEAD^');
  if (parent !== request.commit) throw notARequest(ref, 'the commit under test (HEAD^) is not in this clone');
  return { request, refs: parsedRef.refs };
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

const REQUEST_FIX = [
  'Run check-report in a clone whose HEAD is the request commit the ref points at, as the job',
  'definitions of `splintercat init --ci` do (a checkout of the ref with its parent: fetch depth 2)',
];
const NO_RECORD_FIX = [
  'Run `check-report --ref REF --no-push` in this clone first (the step before the push in',
  'the job definitions of `splintercat init --ci`), then `check-report --ref REF --push-only`',
];

function notARequest(ref: string, why: string, fix: string[] = REQUEST_FIX): UsageError {
  return new UsageError('check_request_invalid', { what: `Cannot report a check for ${ref}`, why, fix });
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
