import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { UsageError } from '../../errors/index.js';
import { testRunners } from '../test-output/types.js';
import { printableName } from '../../util/safe-print.js';
import { shortOid } from '../../util/short-oid.js';
import { RESULT_KEY_VARIABLE, resultSignature, signedWith } from './result-key.js';

/**
 * The contract between splintercat and a CI job, carried by refs of an ordinary git remote.
 *
 * A request is a commit whose parent is the commit under test, whose tree holds the job
 * definition files alone (`check.runner.job_files`, so a CI that reads its pipeline from the pushed
 * commit finds it, and nothing of the tree under test: upstream's own workflows never run as a
 * pushed branch), and whose message holds a `CheckRequest` as JSON, with no secret in it (a
 * secret's `${NAME}` template instead). It is pushed to
 * `refs/splintercat/RUN/checks/ID/request`, or, for CI that starts only for branches, to the
 * branch `refs/heads/splintercat/RUN/checks/ID`. The job checks the parent out, runs the command,
 * and pushes a root commit holding `result.json` (a `CheckResultRecord`) and `log.txt` (the end of
 * the log) to `refs/splintercat/RUN/checks/ID/result`, created only if absent.
 *
 * Anyone who can push to the remote can write a result ref, so a result counts only for a request
 * this clone made: each request carries a secret nonce of its own (PROTOCOL_VERSION 2), the job
 * copies it into its result, and the clone, which keeps its requests in local refs never read
 * from the remote (own-requests.ts), takes a result only when the nonce, commit and check are its
 * request's. The ID names the check and tree for a reader and ends in a digest of the nonce, so
 * no one can push a result ahead of a request: each request, of each clone, is a fresh ID.
 *
 * The nonce is in the request commit, which anyone who reads the remote reads: where the clones
 * and the CI's pushing job share SPLINTERCAT_RESULT_KEY, a result counts only when signed with it
 * (result-key.ts), which no one but that job and the clones can do.
 */

/** The version of requests and results this splintercat writes and reads. */
export const PROTOCOL_VERSION = 2;

const REQUEST_SUBJECT = 'splintercat check request';
export const RESULT_FILE = 'result.json';
export const LOG_FILE = 'log.txt';
const oid = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/);
const nonce = z.string().regex(/^[0-9a-f]{32,128}$/);

const checkRequestSchema = z.object({
  splintercat: z.literal('check-request'),
  version: z.literal(PROTOCOL_VERSION),
  id: z.string().min(1),
  /** The asking clone's secret for this request: its result must carry it. */
  nonce,
  run: z.string().min(1),
  check: z.string().min(1),
  command: z.string().min(1),
  /** `check.setup`, run before the command when not empty. */
  setup: z.string().default(''),
  /** `check.setup_network`: the setup may reach the network (never while it reads an `untrusted` file). */
  setupNetwork: z.boolean().default(false),
  /** `check.setup_when`: the files the setup reads. */
  setupWhen: z.array(z.string()).default([]),
  /** Files of the commit that hold a model's resolution: the setup never runs one, nor reads one with the network. */
  untrusted: z.array(z.string()).default([]),
  timeoutSec: z.number().positive(),
  killGraceSec: z.number().positive().default(10),
  commit: oid,
  requestedAt: z.string(),
  /** The machine that asked (host name), for the reader of the remote. */
  by: z.string().default(''),
});
export type CheckRequest = z.infer<typeof checkRequestSchema>;

const failedTestSchema = z.object({
  id: z.string(),
  title: z.string(),
  message: z.string(),
  location: z.string().nullable(),
  excerpt: z.string(),
});

const checkResultRecordSchema = z.object({
  splintercat: z.literal('check-result'),
  version: z.literal(PROTOCOL_VERSION),
  id: z.string().min(1),
  /** The request's nonce, copied: the result answers that request and no other. */
  nonce,
  /** The request commit the job ran: a request rewritten on the remote (another command, say) is another commit. */
  requestCommit: oid.optional(),
  run: z.string().min(1),
  check: z.string().min(1),
  commit: oid,
  success: z.boolean(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  durationMs: z.number().nonnegative(),
  /** The failing tests as the extractors of checks/test-output name them; null when no runner was recognised. */
  tests: z
    .object({
      runner: z.enum(testRunners),
      failures: z.array(failedTestSchema),
      ran: z.number().int().nonnegative().nullable(),
      /** Why the run stopped before running every test, as its output says (absent from older results). */
      stopped: z.string().nullable().default(null),
    })
    .nullable(),
  /** Where the whole log is kept (the CI job's page), when the job knows it. */
  url: z.string().nullable(),
  /** Who ran it (CI name and host). */
  runner: z.string(),
  finishedAt: z.string(),
  /** HMAC-SHA256 of the record without it, with SPLINTERCAT_RESULT_KEY (result-key.ts), by the job that pushed it. */
  signature: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});
export type CheckResultRecord = z.infer<typeof checkResultRecordSchema>;

/** The refs of one check request of run `run`. */
export interface CheckRefs {
  id: string;
  request: string;
  /** The branch form of the request (trigger: branch). */
  branch: string;
  result: string;
}

/** The prefix every check ref of a run lives under. */
export function checksPrefix(run: string): string {
  return `refs/splintercat/${run}/checks/`;
}

/**
 * What identifies one check of one tree on this clone (readable check and tree, unique per command
 * and time limit): the key its requests are kept under here. Of the tree, not the commit: two
 * commits of one tree are one check.
 */
export function checkRequestKey(check: string, command: string, tree: string, timeoutSec: number): string {
  const safe = check.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40) || 'check';
  const hash = createHash('sha256').update(`${check}\0${command}\0${timeoutSec}\0${tree}`).digest('hex');
  return `${safe}-${shortOid(tree)}-${hash.slice(0, 8)}`;
}

/** A new request secret: 128 random bits. */
export function newNonce(): string {
  return randomBytes(16).toString('hex');
}

/** The id of one request: its check key, then a digest of its nonce (which tells nothing of the nonce). */
export function checkRequestId(key: string, requestNonce: string): string {
  return `${key}-${createHash('sha256').update(`splintercat-request\0${requestNonce}`).digest('hex').slice(0, 16)}`;
}

export function checkRefs(run: string, id: string): CheckRefs {
  const base = `${checksPrefix(run)}${id}`;
  return {
    id,
    request: `${base}/request`,
    branch: `refs/heads/splintercat/${run}/checks/${id}`,
    result: `${base}/result`,
  };
}

/**
 * The refs a request ref names: `refs/splintercat/RUN/checks/ID/request`, or its branch form (as
 * `refs/heads/...`, or a bare branch name as CI variables give it). Null for any other ref.
 */
export function parseRequestRef(ref: string): { run: string; refs: CheckRefs } | null {
  const full = ref.startsWith('refs/') ? ref : `refs/heads/${ref}`;
  const match =
    /^refs\/splintercat\/([^/]+)\/checks\/([^/]+)\/request$/.exec(full) ??
    /^refs\/heads\/splintercat\/([^/]+)\/checks\/([^/]+)$/.exec(full);
  if (!match) return null;
  const run = match[1] as string;
  return { run, refs: checkRefs(run, match[2] as string) };
}

/** The message of a request commit: a subject a person can read, then the request as one JSON line. */
export function requestMessage(request: CheckRequest): string {
  return `${REQUEST_SUBJECT}: ${request.check} on ${shortOid(request.commit)}\n\n${JSON.stringify(request)}\n`;
}

/** The request a commit message carries, or null when it carries none (not a request commit). */
export function parseRequestMessage(message: string): CheckRequest | null {
  const line = message.split('\n').find((l) => l.startsWith('{'));
  if (line === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  const version = versionOf(value, 'check-request');
  if (version !== null && version !== PROTOCOL_VERSION) throw versionMismatch('request', version);
  const parsed = checkRequestSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The `version` of a request or result of kind `kind`, or null when `value` is none. */
function versionOf(value: unknown, kind: 'check-request' | 'check-result'): unknown {
  if (value === null || typeof value !== 'object') return null;
  const record = value as { splintercat?: unknown; version?: unknown };
  return record.splintercat === kind ? (record.version ?? 'none') : null;
}

function versionText(version: unknown): string {
  return typeof version === 'number' ? String(version) : JSON.stringify(version).slice(0, 20);
}

function versionMismatch(what: 'request' | 'result', version: unknown): UsageError {
  return new UsageError('check_protocol_mismatch', {
    what: `The check ${what} is of protocol version ${versionText(version)}; this splintercat speaks version ${PROTOCOL_VERSION}`,
    why: 'The clone that asks and the CI job that answers run different splintercat versions',
    fix: [
      'Run the same splintercat version in the clones and in the CI job (its `splintercat init --ci` command)',
      'Then run `splintercat continue`: the check is asked again',
    ],
  });
}

/** A result record read from `result.json`, or the reason it cannot be used. */
export function parseResultRecord(
  text: string,
): { ok: true; record: CheckResultRecord } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `result.json is not JSON (${(error as Error).message})` };
  }
  const version = versionOf(value, 'check-result');
  if (version !== null && version !== PROTOCOL_VERSION)
    return { ok: false, reason: `${versionMismatch('result', version).what} (the CI job runs another splintercat)` };
  const parsed = checkResultRecordSchema.safeParse(value);
  if (!parsed.success) return { ok: false, reason: `result.json does not match: ${z.prettifyError(parsed.error)}` };
  return { ok: true, record: parsed.data };
}

/**
 * Why `record` does not answer `request`, or null when it does: the same id, run, check and
 * commit, and the request's nonce (compared in constant time); with a result key `key`, also its
 * signature and that it names `pushed`, the request commit this clone pushed, as the one it ran. A result that fails this was not written for this clone's request, whoever wrote it.
 */
export function resultProblem(
  request: CheckRequest,
  record: CheckResultRecord,
  key: string | null = null,
  pushed?: string,
): string | null {
  const a = Buffer.from(record.nonce);
  const b = Buffer.from(request.nonce);
  if (a.length !== b.length || !timingSafeEqual(a, b)) return "its nonce is not this clone's request's";
  if (key !== null && !signedWith(record, key))
    return record.signature === undefined
      ? `it is not signed with ${RESULT_KEY_VARIABLE}`
      : `its signature is not of this clone's ${RESULT_KEY_VARIABLE}`;
  // Signed, the request commit is the job's word: a request rewritten on the remote is not this one.
  if (pushed !== undefined && (key !== null || record.requestCommit !== undefined) && record.requestCommit !== pushed)
    return `it answers the request commit ${record.requestCommit ?? '(none named)'}, not ${pushed}, which this clone pushed`;
  // What the result says is anyone's text: printed only as a name that cannot break a line.
  if (record.id !== request.id || record.run !== request.run)
    return `it names the request ${printableName(record.id)}, not this one`;
  if (record.check !== request.check)
    return `it is for the check '${printableName(record.check)}', not '${request.check}'`;
  if (record.commit !== request.commit) return `it is for the commit ${record.commit}, not ${request.commit}`;
  return null;
}

/** `record` as the schema reads it (what a reader of result.json gets), signed with `key`. */
export function signedRecord(record: CheckResultRecord, key: string): CheckResultRecord {
  const read = checkResultRecordSchema.parse(JSON.parse(JSON.stringify(record)));
  delete read.signature;
  return { ...read, signature: resultSignature(read, key) };
}
