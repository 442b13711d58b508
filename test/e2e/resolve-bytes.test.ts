import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestRepo } from '../helpers/git-repo.js';
import { cliShellCommand, runCli } from '../fixtures/resolve/cli.js';

/**
 * Every byte kept (issue 12): files that are not UTF-8, mixed line endings and no final newline
 * go through `resolve` and the merge driver with the bytes outside the resolved hunk unchanged;
 * a file git sees as binary (UTF-16 with a BOM) reaches a person untouched.
 */
const latin1 = Buffer.from('caf\xe9 cr\xe8me br\xfbl\xe9e\n', 'latin1');
const sjis = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x0a]); // 日本語 in Shift-JIS, then LF
const utf16 = (s: string): Buffer => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);

interface Variant {
  name: string;
  /** The file at the base, with `@` where the conflicting line goes. */
  around: (line: string) => Buffer;
}

const variants: Variant[] = [
  { name: 'Latin-1', around: (line) => Buffer.concat([latin1, Buffer.from(`${line}\n`), latin1, latin1]) },
  { name: 'Shift-JIS', around: (line) => Buffer.concat([sjis, Buffer.from(`${line}\n`), sjis]) },
  {
    name: 'mixed line endings, no final newline',
    around: (line) => Buffer.from(`one\r\ntwo\n${line}\r\nthree\nlast line`),
  },
];

/** main and feature change the same line, only in trailing blanks (the whitespace-only rule resolves it). */
function repoWith(v: Variant, driver: boolean): TestRepo {
  const repo = TestRepo.create();
  if (driver) {
    repo.sh('config', 'merge.splintercat.name', 'splintercat resolution ladder');
    repo.sh('config', 'merge.splintercat.driver', `${cliShellCommand} driver %O %A %B %P %L`);
    writeFileSync(join(repo.dir, '.gitattributes'), 'f.txt merge=splintercat\n');
  }
  writeFileSync(join(repo.dir, 'f.txt'), v.around('beta'));
  repo.sh('add', '-A');
  repo.sh('commit', '-q', '-m', 'base');
  repo.branch('feature');
  writeFileSync(join(repo.dir, 'f.txt'), v.around('BETA  '));
  repo.sh('commit', '-q', '-am', 'main');
  repo.checkout('feature');
  writeFileSync(join(repo.dir, 'f.txt'), v.around('BETA'));
  repo.sh('commit', '-q', '-am', 'feature');
  repo.checkout('main');
  return repo;
}

function merge(repo: TestRepo): void {
  try {
    repo.sh('merge', '--no-edit', 'feature');
  } catch {
    // a conflict is expected without the driver
  }
}

describe('every byte kept through resolve and the merge driver', () => {
  it.each(variants.map((v) => [v.name, v] as const))('splintercat resolve: %s', async (_name, v) => {
    const repo = repoWith(v, false);
    merge(repo);
    const r = await runCli(['resolve', '--json'], repo.dir);
    expect(r.code, r.stderr).toBe(0);
    const bytes = readFileSync(join(repo.dir, 'f.txt'));
    // The whitespace-only rule keeps one side's line; everything else is byte for byte the base's.
    expect(
      [v.around('BETA'), v.around('BETA  ')].some((want) => want.equals(bytes)),
      bytes.toString('latin1'),
    ).toBe(true);
    expect(repo.sh('diff', '--name-only', '--diff-filter=U')).toBe('');
  });

  it.each(variants.map((v) => [v.name, v] as const))('merge driver: %s', async (_name, v) => {
    const repo = repoWith(v, true);
    merge(repo);
    expect(repo.sh('status', '--porcelain')).toBe('');
    const bytes = readFileSync(join(repo.dir, 'f.txt'));
    expect(
      [v.around('BETA'), v.around('BETA  ')].some((want) => want.equals(bytes)),
      bytes.toString('latin1'),
    ).toBe(true);
  });

  it('a UTF-16 file with a BOM (binary to git) is left to a person, untouched', async () => {
    const repo = TestRepo.create();
    writeFileSync(join(repo.dir, 'u.txt'), utf16('alpha\nbeta\n'));
    repo.sh('add', '-A');
    repo.sh('commit', '-q', '-m', 'base');
    repo.branch('feature');
    writeFileSync(join(repo.dir, 'u.txt'), utf16('alpha\nBETA main\n'));
    repo.sh('commit', '-q', '-am', 'main');
    repo.checkout('feature');
    writeFileSync(join(repo.dir, 'u.txt'), utf16('alpha\nBETA feature\n'));
    repo.sh('commit', '-q', '-am', 'feature');
    repo.checkout('main');
    merge(repo);
    const before = readFileSync(join(repo.dir, 'u.txt'));
    const r = await runCli(['resolve', '--json'], repo.dir);
    expect(r.code).toBe(3);
    expect(readFileSync(join(repo.dir, 'u.txt')).equals(before)).toBe(true);
    expect(repo.sh('diff', '--name-only', '--diff-filter=U')).toBe('u.txt');
  });
});
