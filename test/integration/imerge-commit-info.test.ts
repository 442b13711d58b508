import { execFileSync } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Git } from '../../src/git/index.js';
import { parseCommitInfo, readCommitInfo } from '../../src/imerge/commit-info.js';
import type { CommitInfo } from '../../src/imerge/types.js';
import { TestRepo, testGitEnv } from '../helpers/git-repo.js';
import { gitSpy } from '../helpers/git-spy.js';

/**
 * What conflictDetails read before: `git show -s` with the format, split at NULs. Git 2.45 and
 * later print a zero zone as 'Z' where 2.39 prints '+00:00' (as the parser does): compared alike.
 */
function shown(repo: TestRepo, oid: string): CommitInfo {
  const out = repo.sh('show', '-s', '--format=%an%x00%ae%x00%aI%x00%s%x00%b', oid);
  const [author, authorEmail, date, subject, body] = out.split('\0') as string[];
  return {
    oid,
    author: author ?? '',
    authorEmail: authorEmail ?? '',
    date: (date ?? '').replace(/Z$/, '+00:00'),
    subject: subject ?? '',
    body: (body ?? '').trimEnd(),
  };
}

/** A commit object written as given (hash-object --literally), so every header and message shape can be tried. */
function rawCommit(repo: TestRepo, tree: string, author: string, message: string, extraHeaders = ''): string {
  return execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--literally', '--stdin'], {
    cwd: repo.dir,
    input: `tree ${tree}\nauthor ${author}\ncommitter C <c@example.com> 1700000000 +0000\n${extraHeaders}\n${message}`,
    encoding: 'utf8',
  }).trim();
}

describe('commit info read through cat-file', () => {
  it('is what git show -s prints, for awkward authors, zones and messages', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'a.txt': 'a\n' });
    const tree = repo.sh('rev-parse', 'HEAD^{tree}');
    const author = 'Ann Author <ann@example.com> 1700000000 +0000';
    const commits = [
      rawCommit(repo, tree, author, 'subject only\n'),
      rawCommit(repo, tree, author, 'subject without newline'),
      rawCommit(repo, tree, author, ''),
      rawCommit(
        repo,
        tree,
        author,
        '\n \n\t\nafter blank lines\nsecond subject line  \t\n\n\n  body kept as is  \n\nmore body\n\n\n',
      ),
      rawCommit(repo, tree, author, 'crlf subject\r\n\r\nbody line\r\n'),
      rawCommit(repo, tree, author, 'subject ends with a vertical tab\u000b\n\nbody \u00a0\n'),
      rawCommit(repo, tree, author, 'subject with nbsp\u00a0\n\nbody\n'),
      rawCommit(repo, tree, 'Zoë Ünïcode  <zoe@example.com> 1700000000 +0530', 'unicode\n'),
      rawCommit(repo, tree, ' <nameless@example.com> 86399 -0800', 'no name, west of UTC\n'),
      rawCommit(repo, tree, 'Neg Zero <z@example.com> 0 -0000', 'negative zero zone\n'),
      rawCommit(repo, tree, 'Odd <odd@example.com> 1700000000 +1445', 'far east\n'),
      rawCommit(repo, tree, 'Odd <odd@example.com> 1700000000 -0930', 'half hour west\n'),
      rawCommit(repo, tree, 'Stray <a>b@example.com> 1700000000 +0100', 'stray bracket in the address\n'),
      rawCommit(repo, tree, 'Utf <u@example.com> 1700000000 +0000', 'declared utf-8\n', 'encoding UTF-8\n'),
      rawCommit(
        repo,
        tree,
        'First <first@example.com> 1600000000 +0200',
        'two author lines: the last counts\n',
        'author Second <second@example.com> 1700000000 +0000\n',
      ),
      rawCommit(
        repo,
        tree,
        author,
        'signed\n',
        'gpgsig -----BEGIN PGP SIGNATURE-----\n author Fake <fake@example.com> 1 +0000\n -----END PGP SIGNATURE-----\n',
      ),
    ];
    for (const oid of commits) {
      const object = await repo.git.readObject(oid);
      expect(parseCommitInfo(oid, object!.content), oid).toEqual(shown(repo, oid));
      expect(await readCommitInfo(repo.git, oid)).toEqual(shown(repo, oid));
    }
  });

  it('asks git for what it does not reproduce: a non-UTF-8 encoding, a malformed author line', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'a.txt': 'a\n' });
    const tree = repo.sh('rev-parse', 'HEAD^{tree}');
    const latin1 = execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--literally', '--stdin'], {
      cwd: repo.dir,
      input: Buffer.concat([
        Buffer.from(
          `tree ${tree}\nauthor Ren\xe9 <r@example.com> 1700000000 +0000\ncommitter C <c@example.com> 1700000000 +0000\nencoding ISO-8859-1\n\n`,
          'latin1',
        ),
        Buffer.from('caf\xe9\n', 'latin1'),
      ]),
      encoding: 'utf8',
    }).trim();
    const odd = [
      latin1,
      rawCommit(repo, tree, 'No Date <n@example.com>', 'no date\n'),
      rawCommit(repo, tree, 'No Mail 1700000000 +0000', 'no address\n'),
    ];
    const spy = gitSpy();
    const git = new Git({ cwd: repo.dir, env: testGitEnv, gitBinary: spy.binary });
    onTestFinished(() => git.close());
    for (const oid of odd) {
      expect(parseCommitInfo(oid, (await git.readObject(oid))!.content)).toBeNull();
      const info = await readCommitInfo(git, oid);
      expect({ ...info, date: info.date.replace(/Z$/, '+00:00') }).toEqual(shown(repo, oid));
    }
    expect((await readCommitInfo(git, latin1)).author).toBe('René');
    expect(spy.calls().filter((c) => c.startsWith('show'))).toHaveLength(4);

    // An ordinary commit starts no process.
    spy.reset();
    const plain = repo.commit('plain', { 'b.txt': 'b\n' });
    expect(await readCommitInfo(git, plain)).toEqual(shown(repo, plain));
    expect(spy.calls()).toEqual([]);
  });
});
