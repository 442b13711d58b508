import { createHash } from 'node:crypto';
import * as z from 'zod';
import { testRunners } from '../test-output/types.js';
import { shortOid } from '../../util/short-oid.js';

/**
 * The contract between splintercat and a CI job, carried by refs of an ordinary git remote.
 *
 * A request is a commit whose parent is the commit under test, whose tree holds the job
 * definition files alone (`check.runner.jobs`, so a CI that reads its pipeline from the pushed
 * commit finds it, and nothing of the tree under test: upstream's own workflows never run as a
 * pushed branch), and whose message holds a `CheckRequest` as JSON, with no secret in it (a
 * secret's `${NAME}` template instead). It is pushed to
 * `refs/splintercat/RUN/checks/ID/request`, or, for CI that starts only for branches, to the
 * branch `refs/heads/splintercat/RUN/checks/ID`. The job checks the parent out, runs the command,
 * and pushes a root commit holding `result.json` (a `CheckResultRecord`) and `log.txt` (the end of
 * the log) to `refs/splintercat/RUN/checks/ID/result`, created only if absent. The ID is derived
 * from the check, its command and the tree under test, so the same check of the same tree asked
 * twice, from one machine or several, is one request with one result.
 */

const REQUEST_SUBJECT = 'splintercat check request';
export const RESULT_FILE = 'result.json';
export const LOG_FILE = 'log.txt';
const oid = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/);

const checkRequestSchema = z.object({
  splintercat: z.literal('check-request'),
  version: z.literal(1),
  id: z.string().min(1),
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
  version: z.literal(1),
  id: z.string().min(1),
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
 * The id of one check of one tree: readable (check, tree) and unique per command and time limit.
 * Of the tree, not the commit: two machines' commits of one merged tree (a shared run's final
 * merge) are one request with one result.
 */
export function checkRequestId(check: string, command: string, tree: string, timeoutSec: number): string {
  const safe = check.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40) || 'check';
  const hash = createHash('sha256').update(`${check}\0${command}\0${timeoutSec}\0${tree}`).digest('hex');
  return `${safe}-${shortOid(tree)}-${hash.slice(0, 8)}`;
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
  try {
    const parsed = checkRequestSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
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
  const parsed = checkResultRecordSchema.safeParse(value);
  if (!parsed.success) return { ok: false, reason: `result.json does not match: ${z.prettifyError(parsed.error)}` };
  return { ok: true, record: parsed.data };
}
