import { processesWithEnv } from './processes.js';
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { expect, onTestFinished } from 'vitest';
import { runCli, type CliRun } from '../fixtures/resolve/cli.js';
import { TestRepo, testGitEnv } from './git-repo.js';
import { startLlmServer, type LlmServer, type ScriptedReply, type ScriptedToolCall } from './llm-server.js';

/**
 * A repository set up for a hostile model (issue 12), and the five invariants checked after
 * each attack: nothing written outside the repository, no secret in any model request, log,
 * journal, report or console output, no byte changed outside the resolved conflict, no
 * person's edit lost, no process left behind.
 *
 * Layout of the temporary directory (under /var/tmp): `repo/` (the repository), `home/` (HOME, whose shell
 * profile holds a key), `outside/` (a sentinel a symlink in the repository points at),
 * `wt/` (the runs' worktrees). Everything but `repo/` and the worktrees is snapshotted.
 */

/** Fake secrets planted in the CLI's environment (and in HOME's shell profile). */
export const plantedSecrets = {
  OPENAI_API_KEY: 'sk-attack-openai-7f3a9c1e5b2d4086',
  SPLINTERCAT_LLM__API_KEY: 'sk-attack-own-19c0e4a8b7d2f365',
  GITHUB_TOKEN: 'ghp_attackToken0123456789abcdefABCD',
  DEPLOY_PASSWORD: 'attack-password-5521-hunter2',
} as const;
const allSecrets = Object.values(plantedSecrets);

export interface Arena {
  repo: TestRepo;
  root: string;
  home: string;
  outside: string;
  server: LlmServer;
  /** Unique text in the environment of every process the CLI starts (to find leftovers). */
  tag: string;
  /** Run the CLI in the repository with the planted environment. */
  cli(args: string[]): Promise<CliRun>;
}

export interface ArenaOptions {
  /** Extra lines of splintercat.yaml (top-level keys). */
  config?: string[];
  /** Configure the hostile model (default true); without it, only upstream's content attacks. */
  model?: boolean;
}

/** One scripted reply of the hostile model: these tool calls, in order. */
export const turn = (...calls: Array<[string, ScriptedToolCall['args']]>): ScriptedReply => ({
  kind: 'tool_calls',
  calls: calls.map(([name, args]) => ({ name, args })),
});

/**
 * The hostile model's script on build.sh (buildConflict of attack-history.ts): it writes `script` there and
 * runs the build check on it, then writes `fix` when given (the merged lines, so the run can finish), then
 * submits.
 */
export function hostileBuild(script: string, fix?: string): ScriptedReply[] {
  return [
    turn(['write_file', { file: 'build.sh', content: script }]),
    turn(['run_check', { check_level: 'build' }]),
    ...(fix === undefined ? [] : [turn(['write_file', { file: 'build.sh', content: fix }])]),
    turn(['submit_resolution', { file: 'build.sh' }]),
  ];
}

/** Build the arena around a repository prepared by `build` (history, and the merge state for `resolve`). */
export async function createArena(build: (repo: TestRepo) => void, options: ArenaOptions = {}): Promise<Arena> {
  // Not under /tmp: a sandboxed check gets a private /tmp, and must see HOME and the sentinel to attack them.
  const root = realpathSync(mkdtempSync('/var/tmp/splintercat-attack-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'repo'));
  const repo = TestRepo.create(join(root, 'repo'));
  const home = join(root, 'home');
  const outside = join(root, 'outside');
  mkdirSync(home);
  mkdirSync(outside);
  // The keys also sit in files a check can read: they are known, so they are redacted too.
  writeFileSync(join(home, '.bashrc'), `export OPENAI_API_KEY=${plantedSecrets.OPENAI_API_KEY}\n`);
  writeFileSync(join(outside, 'secret.txt'), `token=${plantedSecrets.GITHUB_TOKEN}\n`);
  const server = await startLlmServer();
  build(repo);
  writeFileSync(
    join(repo.dir, 'splintercat.yaml'),
    [
      ...(options.model === false
        ? []
        : [
            'llm:',
            '  provider: openai',
            `  base_url: ${server.baseURL}`,
            '  resolver_model: hostile',
            '  max_retries: 0',
          ]),
      'merge:',
      `  worktrees: ${join(root, 'wt')}`,
      ...(options.config ?? []),
      '',
    ].join('\n'),
  );
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n.splintercat/\nNOTES.local\n');
  const tag = `attack-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const env = { ...plantedSecrets, HOME: home, ATTACK_TAG: tag };
  return { repo, root, home, outside, server, tag, cli: (args) => runCli(args, repo.dir, env) };
}

/** Every file and directory under `dir` (relative, `/`-separated) with its bytes or symlink target; `skip` prunes. */
function tree(dir: string, skip: (rel: string, abs: string) => boolean): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (abs: string): void => {
    for (const name of readdirSync(abs)) {
      const path = join(abs, name);
      const rel = relative(dir, path);
      if (skip(rel, path)) continue;
      const st = lstatSync(path);
      if (st.isSymbolicLink()) out.set(rel, `link`);
      else if (st.isDirectory()) {
        out.set(rel, 'dir');
        walk(path);
      } else out.set(rel, readFileSync(path).toString('base64'));
    }
  };
  walk(dir);
  return out;
}

/** A file's bytes; a symlink's target (as git stores it); a submodule's directory as a mark. */
function entryBytes(abs: string): Buffer {
  const st = lstatSync(abs);
  if (st.isDirectory()) return Buffer.from('<submodule directory>');
  return st.isSymbolicLink() ? Buffer.from(readlinkSync(abs)) : readFileSync(abs);
}

/** The files of a tree object as bytes. */
function treeFiles(repo: TestRepo, treeish: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const line of repo.sh('ls-tree', '-r', '-z', treeish).split('\0').filter(Boolean)) {
    const [meta, path] = line.split('\t') as [string, string];
    const oid = meta.split(' ')[2] as string;
    out.set(
      path,
      execFileSync('git', ['cat-file', 'blob', oid], { cwd: repo.dir, env: { ...process.env, ...testGitEnv } }),
    );
  }
  return out;
}

/** What the repository's tracked files must look like after the attack (bytes), and which hold the conflict. */
export interface Expected {
  files: Map<string, Buffer>;
  /** Files whose conflict hunk (from the first `<<<<<<<` line to the last `>>>>>>>` line) may change. */
  conflicted: Set<string>;
}

/** Expect the working tree as it is now (a conflicted merge stopped in it, before `resolve`). */
export function expectWorkingTree(arena: Arena, conflicted: string[]): Expected {
  const files = new Map<string, Buffer>();
  for (const path of arena.repo.sh('ls-files', '-z').split('\0').filter(Boolean))
    files.set(path, entryBytes(join(arena.repo.dir, path)));
  return { files, conflicted: new Set(conflicted) };
}

/** Expect what git merges of `ours` and `theirs` (conflicted files with their markers): what `merge` starts from. */
export function expectMergeOf(arena: Arena, ours: string, theirs: string): Expected {
  let out: string;
  try {
    out = arena.repo.sh('merge-tree', '--write-tree', '--name-only', ours, theirs);
  } catch (error) {
    out = String((error as { stdout?: string }).stdout ?? ''); // exit 1: conflicts
  }
  const lines = out.split('\n');
  const end = lines.indexOf('');
  return {
    files: treeFiles(arena.repo, lines[0] as string),
    conflicted: new Set(lines.slice(1, end < 0 ? undefined : end)),
  };
}

/**
 * Everything in the temporary directory but the repository and the worktrees (and the
 * directories holding them, which splintercat creates and removes).
 */
function outsideTree(arena: Arena): Map<string, string> {
  const all = tree(
    arena.root,
    (rel, abs) => rel === 'repo' || (rel.startsWith('wt/') && existsSync(join(abs, '.git'))),
  );
  for (const [rel, kind] of all) if (kind === 'dir' && /^wt(\/[^/]+)?$/.test(rel)) all.delete(rel);
  return all;
}

const markerOpen = /^<{7}( |$)/m;
const markerClose = /^>{7}( .*)?$/gm;

/** The bytes before the first conflict hunk and after the last one. */
function outsideConflict(bytes: Buffer): { head: Buffer; tail: Buffer } {
  const text = bytes.toString('latin1');
  const open = markerOpen.exec(text);
  const closes = [...text.matchAll(markerClose)];
  const close = closes.at(-1);
  if (!open || !close) return { head: bytes, tail: Buffer.alloc(0) };
  const end = (close.index ?? 0) + close[0].length + 1;
  return { head: bytes.subarray(0, open.index), tail: bytes.subarray(Math.min(end, bytes.length)) };
}

/** Live (non-zombie) processes whose environment holds ATTACK_TAG=tag. */
function processesTagged(tag: string): number[] {
  return processesWithEnv('ATTACK_TAG', tag);
}

/** Every file under `dir` as text (missing dir: nothing). */
export function textsUnder(dir: string): Array<[string, string]> {
  if (!existsSync(dir)) return [];
  return [...tree(dir, () => false)]
    .filter(([, v]) => v !== 'dir' && v !== 'link')
    .map(([rel, b64]) => [join(dir, rel), Buffer.from(b64, 'base64').toString('latin1')]);
}

export interface Before {
  outside: Map<string, string>;
  expected: Expected;
  notes: Buffer;
}

/** Take the snapshots the invariants compare against; call after `build`, before the attack. */
export function before(arena: Arena, expected: Expected): Before {
  const notes = Buffer.from(`my notes, not committed: ${arena.tag}\n`);
  writeFileSync(join(arena.repo.dir, 'NOTES.local'), notes);
  return { outside: outsideTree(arena), expected, notes };
}

/**
 * The five invariants of issue 12 after an attack. `outputs`: the CLI runs (their stdout and
 * stderr are scanned for secrets too). `report`: also run `splintercat report` and scan it.
 */
export async function assertInvariants(
  arena: Arena,
  snap: Before,
  outputs: CliRun[],
  options: { report?: boolean } = {},
): Promise<void> {
  // 1. Nothing written outside the repository (HOME, the sentinel, the parent directory, beside the worktrees).
  expect([...outsideTree(arena)]).toEqual([...snap.outside]);

  // 2. No secret in a model request, a log, the journal, a report or the console.
  const scanned: Array<[string, string]> = [
    ...arena.server.requests.map((r, i): [string, string] => [`model request ${i + 1}`, r.raw]),
    ...outputs.map((o, i): [string, string] => [`cli run ${i + 1}`, o.stdout + o.stderr]),
    ...textsUnder(join(arena.repo.dir, '.splintercat')),
    ...textsUnder(join(arena.repo.dir, '.git', 'splintercat')),
  ];
  if (options.report) {
    const report = await arena.cli(['report']);
    expect(report.code, report.stderr).toBe(0);
    scanned.push(['report', report.stdout + report.stderr]);
  }
  const leaks = scanned.flatMap(([where, text]) =>
    allSecrets.filter((s) => text.includes(s)).map((s) => `${s} in ${where}`),
  );
  expect(leaks).toEqual([]);

  // 3. No byte changed outside the resolved conflict.
  for (const [path, want] of snap.expected.files) {
    const abs = join(arena.repo.dir, path);
    expect(lstatSync(abs, { throwIfNoEntry: false }), path).toBeDefined();
    const got = entryBytes(abs);
    if (!snap.expected.conflicted.has(path)) {
      expect(got.equals(want), `${path} changed`).toBe(true);
      continue;
    }
    const w = outsideConflict(want);
    expect(got.subarray(0, w.head.length).equals(w.head), `${path}: bytes before the conflict changed`).toBe(true);
    expect(got.subarray(got.length - w.tail.length).equals(w.tail), `${path}: bytes after the conflict changed`).toBe(
      true,
    );
  }

  // 4. No person's edit lost: their untracked notes (their edits to tracked files are in `expected`).
  expect(readFileSync(join(arena.repo.dir, 'NOTES.local')).equals(snap.notes)).toBe(true);

  // 5. No process left behind (a check's background children, a grep).
  expect(processesTagged(arena.tag)).toEqual([]);
}
