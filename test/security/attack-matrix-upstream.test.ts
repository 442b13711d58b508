import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeBwrap } from '../../src/checks/sandbox.js';
import { assertInvariants, before, createArena, expectMergeOf, expectWorkingTree } from '../helpers/attack-arena.js';
import {
  appendConfig,
  checkConfig,
  handoffDir,
  logLinkAttack,
  mergeHandOffContinue,
  upstreamAdds,
} from '../helpers/attack-history.js';
import { submoduleConflict } from '../fixtures/imerge/submodule-conflict.js';

/**
 * The attack matrix, second round: upstream's own content attacks, with no model at all. An
 * upstream commit adds a hostile `test.sh` and the check is `sh test.sh`: it runs on upstream's
 * tip (its baseline) and on every merge after, in the sandbox. The five invariants hold after each.
 */

describe.runIf(probeBwrap().ok)('attack matrix: upstream content alone (no model)', () => {
  it.each(['auto', 'off'])(
    "critical: a check repointing its worktree .git at a gitdir whose config runs core.fsmonitor and hooks gets nothing run by splintercat's git (sandbox %s)",
    async (sandbox) => {
      const arena = await createArena(() => undefined, { model: false });
      const escaped = join(arena.outside, 'ESC');
      const hostile = [
        'mkdir -p .wt/objects .wt/refs/heads',
        "echo 'ref: refs/heads/main' > .wt/HEAD",
        `printf '[core]\\n\\tfsmonitor = "env > ${escaped}; false"\\n\\thooksPath = hooks\\n' > .wt/config`,
        "mkdir -p hooks; printf '#!/bin/sh\\nenv > " +
          escaped +
          ".hook\\n' > hooks/post-checkout; chmod +x hooks/post-checkout",
        'echo "gitdir: $PWD/.wt" > .git || echo "could not repoint .git"',
        'exit 0',
        '',
      ].join('\n');
      upstreamAdds({ 'test.sh': hostile })(arena.repo);
      appendConfig(arena, checkConfig('sh test.sh', [`  sandbox: ${sandbox}`]));
      const snap = before(arena, expectMergeOf(arena, 'main', 'upstream'));
      const runs = await mergeHandOffContinue(arena);
      expect(existsSync(escaped)).toBe(false);
      expect(existsSync(`${escaped}.hook`)).toBe(false);
      expect(runs[1]?.code, runs[1]?.stderr).toBe(0);
      await assertInvariants(arena, snap, runs, { report: true });
    },
  );

  it.each([
    ['auto', '/proc/self/environ'],
    ['off', '/proc/self/environ'],
  ])(
    'critical: a failing check replacing its newest log with a link (sandbox %s, to %s) gets nothing read back: not the summary, the hand-off excerpt, the journal, the report',
    (sandbox, target) => logLinkAttack(sandbox, target),
  );

  it('high: a conflicted file named "n\\ntouch PWNED;#", an upstream branch named with $(...) and check output with escape sequences: nothing printed runs, nothing reaches the terminal raw', async () => {
    const arena = await createArena(() => undefined, { model: false });
    const name = 'n\ntouch PWNED;#';
    const branch = 'up$(touch${IFS}PWNED2)';
    // OSC 52 (clipboard), a window title, a screen clear and a bell; then a pass.
    const noisy = "printf '\\033]52;c;cHduZWQ=\\007\\033]0;owned\\007\\033[2J\\007checked\\n'\n";
    const repo = arena.repo;
    repo.commit('base', { 'a.txt': 'a\n', 'test.sh': noisy });
    writeFileSync(join(repo.dir, name), 'alpha\nbeta\ngamma\n');
    repo.commit('base file');
    repo.branch(branch);
    writeFileSync(join(repo.dir, name), 'alpha\nbeta fork\ngamma\n');
    repo.commit('fork');
    repo.checkout(branch);
    writeFileSync(join(repo.dir, name), 'alpha\nbeta upstream\ngamma\n');
    repo.commit('upstream');
    repo.checkout('main');
    appendConfig(arena, checkConfig('sh test.sh'));
    const snap = before(arena, expectWorkingTree(arena, []));

    const merge = await arena.cli(['merge', branch]);
    expect(merge.code, merge.stderr).toBe(3);
    const status = await arena.cli(['status', '--json']);
    const handoff = (JSON.parse(status.stdout) as { handoff: { commands: string[] } }).handoff;
    const check = await arena.cli(['check', 'quick']);
    expect(check.stderr).toContain('checked');
    const md = await arena.cli(['report', '--md']);
    const text = await arena.cli(['status']);
    const outputs = [merge, status, check, md, text];
    for (const o of outputs) expect(rawControls(o.stdout + o.stderr), o.stdout + o.stderr).toEqual([]);
    // The name is shown escaped, and named by its number.
    expect(merge.stderr).toContain('"n\\ntouch PWNED;#" (file 1; its name holds control characters, shown escaped)');

    // Every command printed (the Then: block and status --json), run literally, runs nothing it should not.
    const then =
      merge.stderr
        .slice(merge.stderr.indexOf('Then:\n') + 6)
        .split('\n\n')[0]
        ?.split('\n') ?? [];
    expect(then.length).toBeGreaterThan(1);
    const scratch = join(arena.root, 'scratch');
    mkdirSync(scratch);
    for (const line of [...then, ...handoff.commands]) {
      expect(line).not.toMatch(/[\n\r]/);
      spawnSync('/bin/sh', ['-c', line], { cwd: scratch, env: { PATH: '/usr/bin:/bin' } });
    }
    for (const dir of [scratch, arena.repo.dir, handoffDir(merge)])
      for (const pwned of ['PWNED', 'PWNED2']) expect(existsSync(join(dir, pwned)), join(dir, pwned)).toBe(false);
    rmSync(scratch, { recursive: true });
    await assertInvariants(arena, snap, outputs, { report: true });
  });

  it('medium: a submodule conflict (git 2.39 adds free text to merge-tree -z) is handed to a person, never a hang', async () => {
    const arena = await createArena(() => undefined, { model: false });
    submoduleConflict(arena.repo);
    appendConfig(arena, checkConfig('true'));
    const snap = before(arena, expectWorkingTree(arena, []));
    const merge = await arena.cli(['merge', 'upstream']);
    expect(merge.code, merge.stderr).toBe(3);
    expect(merge.stderr).toMatch(/^\s+s \[submodule\]/m);
    await assertInvariants(arena, snap, [merge], { report: true });
  });
});

/** Control characters a terminal would act on: any but newline and tab, escape sequences included. */
function rawControls(text: string): string[] {
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  return [...text.matchAll(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/g)].map((m) => JSON.stringify(m[0]));
}
