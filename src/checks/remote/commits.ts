import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SplintercatError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import { withTempIndex } from '../../git/temp-index.js';
import { TOOL_IDENTITY } from '../../git/tool-identity.js';
import { LOG_FILE, RESULT_FILE, requestMessage, type CheckRequest, type CheckResultRecord } from './protocol.js';
import { requestWithoutSecrets } from './request-secrets.js';
import { shortOid } from '../../util/short-oid.js';

/**
 * The request commit for `request`: a tree holding only the job definition files (`jobs`: path in
 * the tree -> file relative to `workdir`), so a CI that reads its pipeline from the pushed commit
 * finds this one and nothing of the tree under test (upstream's own workflows would run with the
 * repository's secrets); the commit under test as its only parent, which the job checks out; the
 * request in its message, with no secret of `env` in it (request-secrets.ts).
 */
export async function createRequestCommit(
  git: Git,
  request: CheckRequest,
  jobs: Readonly<Record<string, string>>,
  workdir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const carried = requestWithoutSecrets(request, env);
  const tree = await withTempIndex(async (index) => {
    await git.run(['read-tree', '--empty'], { env: index });
    for (const [path, source] of Object.entries(jobs)) {
      const blob = await git.text(['hash-object', '-w', '--stdin'], { input: readJobFile(workdir, source, path) });
      await git.run(['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], { env: index });
    }
    return git.text(['write-tree'], { env: index });
  });
  return git.text(['commit-tree', tree, '-p', carried.commit], {
    input: requestMessage(carried),
    env: TOOL_IDENTITY,
  });
}

function readJobFile(workdir: string, source: string, path: string): Buffer {
  try {
    return readFileSync(resolve(workdir, source));
  } catch (error) {
    throw new SplintercatError('check_job_missing', {
      what: `The job definition ${source} (check.runner.job_files, carried as ${path}) cannot be read`,
      why: (error as Error).message,
      fix: ['Write it with `splintercat init --ci github` (or gitlab), or remove it from check.runner.job_files'],
      where: resolve(workdir, source),
    });
  }
}

/**
 * A commit of the working tree of `cwd` as it is (tracked and untracked files, ignored ones left
 * out), on top of its HEAD: what a check of uncommitted work (the resolver's `run_check`) tests.
 */
export async function snapshotWorktree(git: Git, cwd: string): Promise<string> {
  const wt = git.at(cwd);
  const head = await wt.text(['rev-parse', '--verify', 'HEAD']);
  const tree = await withTempIndex(async (env) => {
    await wt.run(['read-tree', 'HEAD'], { env });
    await wt.run(['add', '-A', '--', '.'], { env });
    return wt.text(['write-tree'], { env });
  });
  return wt.text(['commit-tree', tree, '-p', head], {
    input: 'splintercat: the working tree under test\n',
    env: TOOL_IDENTITY,
  });
}

/** The result commit: a root commit holding `result.json` and `log.txt`. */
export async function createResultCommit(git: Git, record: CheckResultRecord, log: string): Promise<string> {
  const json = await git.text(['hash-object', '-w', '--stdin'], { input: `${JSON.stringify(record, null, 2)}\n` });
  const text = await git.text(['hash-object', '-w', '--stdin'], { input: log });
  const tree = await git.text(['mktree'], {
    input: `100644 blob ${text}\t${LOG_FILE}\n100644 blob ${json}\t${RESULT_FILE}\n`,
  });
  return git.text(['commit-tree', tree], {
    input: `splintercat check result: ${record.check} ${record.success ? 'passed' : 'failed'} on ${shortOid(record.commit)}\n`,
    env: TOOL_IDENTITY,
  });
}
