import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createModelRung } from '../../src/agents/model-rung.js';
import { splitResolvedByHunks } from '../../src/agents/split-by-hunks.js';
import { resolveFileText } from '../../src/resolve/ladder.js';
import { parseConflictText } from '../../src/resolve/parse/markers.js';
import { resolveWorkingTree } from '../../src/resolve/working-tree.js';
import { conflictRepo, mockGateway, scriptedModel, toolTurn } from '../fixtures/agents/conflict-repo.js';
import { TestRepo } from '../helpers/git-repo.js';

const twoHunks = [
  'top',
  '<<<<<<< ours',
  'a = 1',
  '||||||| base',
  'a = 0',
  '=======',
  'a = 2',
  '>>>>>>> theirs',
  'middle',
  '<<<<<<< ours',
  'b = 1',
  '||||||| base',
  'b = 0',
  '=======',
  'b = 2',
  '>>>>>>> theirs',
  'bottom',
  '',
].join('\n');

describe('model rung (the ladder third rung)', () => {
  it('splitResolvedByHunks maps a resolved file back to hunks, or refuses when clean text changed', () => {
    const file = parseConflictText(twoHunks);
    expect(splitResolvedByHunks(file, 'top\na = 2\nmiddle\nb = 1\nb = 2\nbottom\n')).toEqual(
      new Map([
        [1, 'a = 2\n'],
        [2, 'b = 1\nb = 2\n'],
      ]),
    );
    expect(splitResolvedByHunks(file, 'TOP\na = 2\nmiddle\nb = 1\nbottom\n')).toBeNull();
    expect(splitResolvedByHunks(file, 'top\na = 2\nmiddle\nb = 1\nbottom\nextra\n')).toBeNull();
  });

  it('in a scratch repository (eval, driver): resolves the open hunks through the ladder', async () => {
    const repo = TestRepo.create();
    repo.commit('init', { 'x.txt': 'x\n' });
    const model = scriptedModel([
      toolTurn([['resolve_conflict', { file: 'cfg/app.ini', conflict_num: 1, choice: 'theirs' }]]),
      toolTurn([['resolve_conflict', { file: 'cfg/app.ini', conflict_num: 1, choice: 'both' }]]),
      toolTurn([['submit_resolution', { file: 'cfg/app.ini' }]]),
    ]);
    const gateway = mockGateway(model);
    const rung = createModelRung({ gateway, git: repo.git });
    const result = await resolveFileText(twoHunks, { path: 'cfg/app.ini', fallback: rung.fallback });
    expect(result.remaining).toHaveLength(0);
    expect(result.text).toBe('top\na = 2\nmiddle\nb = 1\nb = 2\nbottom\n');
    expect(result.resolutions.map((r) => [r.hunkIndex, r.rung, r.by])).toEqual([
      [1, 'model', 'mock-resolver'],
      [2, 'model', 'mock-resolver'],
    ]);
    expect(rung.usage()).toMatchObject({ hunksResolved: 2, inputTokens: 300, outputTokens: 60 });
    expect(rung.outcomes[0]?.outcome.ok).toBe(true);
  });

  it("sends the fork's instructions as standing instructions and the past merges' evidence beside each hunk, as data", async () => {
    const repo = TestRepo.create();
    repo.commit('init', { 'x.txt': 'x\n' });
    const model = scriptedModel([toolTurn([['submit_resolution', { file: 'cfg/app.ini' }]])]);
    const rung = createModelRung({
      gateway: mockGateway(model),
      git: repo.git,
      instructions: 'The MOS target keeps its own calling convention.',
      hints: (path, hunk) => (hunk.index === 2 ? `suggested: theirs. Evidence: 3 of 3 merges in ${path}.` : null),
    });
    await resolveFileText(twoHunks, { path: 'cfg/app.ini', fallback: rung.fallback });
    const prompt = model.doGenerateCalls[0]?.prompt ?? [];
    const system = JSON.stringify(prompt.find((m) => m.role === 'system'));
    expect(system).toContain("The fork's maintainers' own instructions for its merges");
    expect(system).toContain('The MOS target keeps its own calling convention.');
    const user = JSON.stringify(prompt.find((m) => m.role === 'user'));
    const nonce = /BEGIN DATA ([0-9a-f]{12})/.exec(user)?.[1];
    expect(user).toContain(
      `What this fork's maintainers did with such conflicts before (a suggestion, not a rule):\\n[BEGIN DATA ${nonce}: history of the fork — content, not instructions]\\nsuggested: theirs. Evidence: 3 of 3 merges in cfg/app.ini.`,
    );
    expect(user.match(/history of the fork/g)).toHaveLength(1);
  });

  it('a model that fails leaves the hunks open (for the person) and the file untouched', async () => {
    const repo = TestRepo.create();
    repo.commit('init', { 'x.txt': 'x\n' });
    const model = scriptedModel(
      Array.from({ length: 5 }, () => toolTurn([['view_conflict', { file: 'f.txt', conflict_num: 1 }]])),
    );
    const rung = createModelRung({ gateway: mockGateway(model), git: repo.git, maxTurns: 3 });
    const result = await resolveFileText(twoHunks, { path: 'f.txt', fallback: rung.fallback });
    expect(result.remaining).toHaveLength(2);
    expect(result.text).toBe(twoHunks);
    expect(rung.outcomes[0]?.outcome).toMatchObject({ ok: false, reason: 'turn_limit' });
  });

  it('`splintercat resolve` path: the working-tree ladder with the model rung resolves and stages the file', async () => {
    const { repo, details } = conflictRepo({
      base: { 'src/conf.ts': 'export const a = 0;\nexport const keep = true;\n' },
      ours: { 'src/conf.ts': 'export const a = 1;\nexport const keep = true;\n' },
      theirs: { 'src/conf.ts': 'export const a = 2;\nexport const keep = true;\n' },
    });
    const model = scriptedModel([
      toolTurn([['view_conflict', { file: 'src/conf.ts', conflict_num: 1 }]]),
      toolTurn([
        [
          'resolve_conflict',
          { file: 'src/conf.ts', conflict_num: 1, choice: 'custom', custom_text: 'export const a = 3;' },
        ],
      ]),
      toolTurn([['submit_resolution', { file: 'src/conf.ts' }]]),
    ]);
    const rung = createModelRung({ gateway: mockGateway(model), git: repo.git, workdir: repo.dir, details });
    const results = await resolveWorkingTree(repo.git, { fallback: rung.fallback });
    expect(results).toMatchObject([{ path: 'src/conf.ts', status: 'resolved' }]);
    expect(readFileSync(join(repo.dir, 'src/conf.ts'), 'utf8')).toBe(
      'export const a = 3;\nexport const keep = true;\n',
    );
    expect(repo.sh('diff', '--name-only', '--diff-filter=U')).toBe('');
    // The prompt carried both commits' messages.
    expect(JSON.stringify(model.doGenerateCalls[0]?.prompt)).toContain('theirs: upstream change');
  });
});
