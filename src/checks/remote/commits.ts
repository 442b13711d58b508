import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SplintercatError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import { withTempIndex } from '../../git/temp-index.js';
import { TOOL_IDENTITY } from '../../git/tool-identity.js';
import { LOG_FILE, RESULT_FILE, requestMessage, type CheckRequest, type CheckResultRecord } from './protocol.js';
import { shortOid } from '../../util/short-oid.js';

/**
 * The request commit for `request`: the tree of the commit under test with the job definition
 * files put in (`jobs`: path in the tree -> file relative to `workdir`), the commit under test as
 * its only parent, the request in its message.
 */
export async function createRequestCommit(
  git: Git,
  request: CheckRequest,
  jobs: Readonly<Record<string, string>>,
  workdir: string,
): Promise<string> {
  const tree = await withTempIndex(async (env) => {
    await git.run(['read-tree', `${request.commit}^{tree}`], { env });
    for (const [path, source] of Object.entries(jobs)) {
      let content: Buffer;
      try {
        content = readFileSync(resolve(workdir, source));
      } catch (error) {
        throw new SplintercatError('check_job_missing', {
          what: `The job definition ${source} (check.runner.jobs, carried as ${path}) cannot be read`,
          why: (error as Error).message,
          fix: ['Write it with `splintercat init --ci github` (or gitlab), or remove it from check.runner.jobs'],
          where: resolve(workdir, source),
        });
      }
      const blob = await git.text(['hash-object', '-w', '--stdin'], { input: content });
      await git.run(['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], { env });
    }
    return git.text(['write-tree'], { env });
  });
  return git.text(['commit-tree', tree, '-p', request.commit], {
    input: requestMessage(request),
    env: TOOL_IDENTITY,
  });
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
