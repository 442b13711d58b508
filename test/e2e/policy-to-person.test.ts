import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestRepo } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';

/** base -> main (fork) and -> upstream, each one commit; the repository on main, configured with `config`. */
function forked(path: string, texts: [string, string, string], config: string[], files: Record<string, string> = {}) {
  const repo = TestRepo.create();
  repo.commit('base', { [path]: texts[0], ...files });
  repo.branch('upstream');
  repo.commit('fork', { [path]: texts[1] });
  repo.checkout('upstream');
  repo.commit('upstream', { [path]: texts[2] });
  repo.checkout('main');
  writeFileSync(join(repo.dir, 'splintercat.yaml'), ['target:', '  branch: main', ...config, ''].join('\n'));
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
  return repo;
}

interface Status {
  handoff: { conflicts: Array<{ worktree: string; files: Array<{ path: string; instructions: string }> }> };
}

describe('a resolve.paths decision that fails goes to a person (exit 3), never ends the merge as failed', () => {
  it(
    'a union that is not valid JSON is handed over with why; no later rung takes the hunk',
    { timeout: 120_000 },
    async () => {
      const repo = forked(
        'x.json',
        ['{\n  "a": 1\n}\n', '{\n  "a": 2\n}\n', '{\n  "a": 3\n}\n'],
        [
          'check:',
          '  commands: {}',
          '  workflow: []',
          'imerge:',
          '  name: up',
          'resolve:',
          '  paths:',
          '    "*.json": union ours-first',
        ],
      );
      const r = await runCli(['merge', 'upstream'], repo.dir);
      expect(r.code, r.stderr).toBe(3);
      const status = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as Status;
      const conflict = status.handoff.conflicts[0]!;
      const file = conflict.files.find((f) => f.path === 'x.json')!;
      expect(file.instructions).toMatch(
        /the fork's policy \(\*\.json: union ours-first in resolve\.paths\) leaves x\.json not parsing \(not valid JSON: line 3, column 3: [^)]*\): left to a person/,
      );
      expect(`${r.stdout}${r.stderr}`).toContain(file.instructions);
      // The hunk is as git left it, for the person.
      expect(readFileSync(join(conflict.worktree, 'x.json'), 'utf8')).toMatch(
        /^<<<<<<< .*\n {2}"a": 2\n[^]*\n {2}"a": 3\n>>>>>>> /m,
      );
    },
  );

  it(
    'a union a check fails on is presented in place to amend (exit 3); the amended merge then finishes',
    { timeout: 120_000 },
    async () => {
      const check = [
        "import { readFileSync } from 'node:fs';",
        "const t = readFileSync('NEWS', 'utf8');",
        "if (t.includes('fork') && t.includes('upstream')) { console.error('NEWS names both'); process.exit(1); }",
        '',
      ].join('\n');
      const repo = forked(
        'NEWS',
        ['head\nbase\ntail\n', 'head\nfork\ntail\n', 'head\nupstream\ntail\n'],
        [
          'check:',
          '  sandbox: "off"',
          '  commands:',
          '    build: node check.mjs',
          '  workflow: [build]',
          'imerge:',
          '  name: up',
          'resolve:',
          '  paths:',
          '    NEWS: union ours-first',
        ],
        { 'check.mjs': check },
      );
      const r = await runCli(['merge', 'upstream'], repo.dir);
      expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(3);
      expect(`${r.stdout}${r.stderr}`).not.toContain("The merge 'up' failed");
      const status = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as Status;
      const conflict = status.handoff.conflicts[0]!;
      const news = conflict.files.find((f) => f.path === 'NEWS')!;
      expect(news.instructions).toMatch(
        /the resolution of NEWS is in place \(no markers\), as the fork's policy decided it \(NEWS: union ours-first in resolve\.paths; the ladder would decide it the same again\); check 'build' failed on it/,
      );
      expect(`${r.stdout}${r.stderr}`).toContain('NEWS names both');
      // The policy's union is in place, to amend.
      expect(readFileSync(join(conflict.worktree, 'NEWS'), 'utf8')).toBe('head\nfork\nupstream\ntail\n');
      writeFileSync(join(conflict.worktree, 'NEWS'), 'head\nupstream\ntail\n');
      const next = await runCli(['continue'], repo.dir);
      expect(next.code, `${next.stdout}\n${next.stderr}`).toBe(0);
      expect(repo.sh('show', 'main:NEWS')).toBe('head\nupstream\ntail');
    },
  );
});
