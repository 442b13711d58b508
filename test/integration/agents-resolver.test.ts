import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveWithModel } from '../../src/agents/resolver/resolver-agent.js';
import { conflictRepo, mockGateway, scriptedModel, textTurn, toolTurn } from '../fixtures/agents/conflict-repo.js';

const base = 'line one\nvalue = 1\nline three\n';

function simpleConflict() {
  return conflictRepo({
    base: { 'conf.txt': base },
    ours: { 'conf.txt': 'line one\nvalue = 2\nline three\n' },
    theirs: { 'conf.txt': 'line one\nvalue = 3\nline three\n' },
    oursMessage: 'ours: bump value to 2',
    theirsMessage: 'theirs: bump value to 3 for the new API',
  });
}

describe('resolver agent (scripted MockLanguageModelV3)', () => {
  it('views the conflict, resolves with theirs, submits: file written, every call recorded', async () => {
    const { repo, details } = simpleConflict();
    const model = scriptedModel([
      toolTurn([['view_conflict', { file: 'conf.txt', conflict_num: 1 }]], 'Let me look at the conflict.'),
      toolTurn(
        [['resolve_conflict', { file: 'conf.txt', conflict_num: 1, choice: 'theirs' }]],
        'Upstream needs 3 for the new API.',
      ),
      toolTurn([['submit_resolution', { file: 'conf.txt' }]]),
    ]);
    const gateway = mockGateway(model);
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['conf.txt'], details, conflictId: '1-1' },
      { gateway, git: repo.git },
    );
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(readFileSync(join(repo.dir, 'conf.txt'), 'utf8')).toBe('line one\nvalue = 3\nline three\n');
    expect(out.files['conf.txt']).toBe('line one\nvalue = 3\nline three\n');
    expect(out.toolCalls.map((c) => c.tool)).toEqual(['view_conflict', 'resolve_conflict', 'submit_resolution']);
    expect(out.toolCalls[0]?.output).toMatch(/Conflict 1 of 1/);
    expect(out.toolCalls[0]?.output).toMatch(/<<<<<<< HEAD/);
    expect(out.toolCalls[2]?.output).toMatch(/^Accepted: conf.txt/);
    expect(out.reasoning.join('\n')).toContain('new API');
    expect(out.turns).toBe(3);
    expect(model.doGenerateCalls).toHaveLength(3);
    // The first prompt carries both commit messages and the conflict, as data.
    const firstPrompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    expect(firstPrompt).toContain('bump value to 3 for the new API');
    expect(firstPrompt).toContain('bump value to 2');
    expect(firstPrompt).toMatch(/BEGIN DATA [0-9a-f]{12}/);
    // Both commits' diffs for the file, and base/ours/theirs of the hunk.
    expect(firstPrompt).toContain('+value = 2');
    expect(firstPrompt).toContain('+value = 3');
    expect(firstPrompt).toMatch(/base:\\nvalue = 1/);
    // The tool result went back to the model on the next call.
    expect(JSON.stringify(model.doGenerateCalls[1]?.prompt)).toContain('Conflict 1 of 1');
    // Usage is accounted per role and per conflict.
    expect(gateway.usage.byRole().resolver.calls).toBe(3);
    expect(gateway.usage.byConflict()['1-1']?.inputTokens).toBe(300);
  });

  it('on a retry the failure summary is in the prompt', async () => {
    const { repo, details } = simpleConflict();
    const model = scriptedModel([
      toolTurn([['resolve_conflict', { file: 'conf.txt', conflict_num: 1, choice: 'ours' }]]),
      toolTurn([['submit_resolution', { file: 'conf.txt' }]]),
    ]);
    const failure = {
      error_type: 'compile_error' as const,
      location: 'conf.txt:2',
      root_cause: 'value 3 is rejected by the parser',
      excerpt: 'conf.txt:2: error: bad value',
    };
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['conf.txt'], details, failure },
      { gateway: mockGateway(model), git: repo.git },
    );
    expect(out.ok).toBe(true);
    const prompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    expect(prompt).toContain('A previous resolution attempt failed');
    expect(prompt).toContain('compile_error at conf.txt:2: value 3 is rejected by the parser');
  });

  it('custom resolution with custom_text', async () => {
    const { repo, details } = simpleConflict();
    const model = scriptedModel([
      toolTurn([['view_conflict', { file: 'conf.txt', conflict_num: 1, context_lines: 2 }]]),
      toolTurn([
        ['resolve_conflict', { file: 'conf.txt', conflict_num: 1, choice: 'custom', custom_text: 'value = 5' }],
      ]),
      toolTurn([['submit_resolution', { file: 'conf.txt' }]]),
    ]);
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['conf.txt'], details },
      { gateway: mockGateway(model), git: repo.git },
    );
    expect(out.ok).toBe(true);
    expect(readFileSync(join(repo.dir, 'conf.txt'), 'utf8')).toBe('line one\nvalue = 5\nline three\n');
  });

  it('custom without custom_text is an error the model sees, and it recovers', async () => {
    const { repo } = simpleConflict();
    const model = scriptedModel([
      toolTurn([['resolve_conflict', { file: 'conf.txt', conflict_num: 1, choice: 'custom' }]]),
      toolTurn([['resolve_conflict', { file: 'conf.txt', conflict_num: 1, choice: 'both' }]]),
      toolTurn([['submit_resolution', { file: 'conf.txt' }]]),
    ]);
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['conf.txt'] },
      { gateway: mockGateway(model), git: repo.git },
    );
    expect(out.ok).toBe(true);
    expect(out.toolCalls[0]?.output).toMatch(/needs custom_text/);
    expect(readFileSync(join(repo.dir, 'conf.txt'), 'utf8')).toBe('line one\nvalue = 2\nvalue = 3\nline three\n');
  });

  it('needs more context: view_more_context shows lines far from the conflict', async () => {
    const head = Array.from({ length: 40 }, (_, i) => `// header ${i + 1}`).join('\n') + '\n';
    const { repo } = conflictRepo({
      base: { 'a.ts': `${head}export const x = 1;\n` },
      ours: { 'a.ts': `${head}export const x = 2;\n` },
      theirs: { 'a.ts': `${head}export const x = 3;\n` },
    });
    const model = scriptedModel([
      toolTurn([['view_conflict', { file: 'a.ts', conflict_num: 1 }]]),
      toolTurn([['view_more_context', { file: 'a.ts', conflict_num: 1, before: 40, after: 0 }]]),
      toolTurn([['resolve_conflict', { file: 'a.ts', conflict_num: 1, choice: 'ours' }]]),
      toolTurn([['submit_resolution', { file: 'a.ts' }]]),
    ]);
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['a.ts'] },
      { gateway: mockGateway(model), git: repo.git },
    );
    expect(out.ok).toBe(true);
    expect(out.toolCalls[0]?.output).not.toContain('// header 1\n');
    expect(out.toolCalls[1]?.output).toContain(' 1: // header 1');
    expect(readFileSync(join(repo.dir, 'a.ts'), 'utf8')).toBe(`${head}export const x = 2;\n`);
  });

  it('follows a rename with git_show_commit and grep_codebase, then writes a custom resolution', async () => {
    const { repo, details, theirs } = conflictRepo({
      base: {
        'src/use.ts': 'import { oldName } from "./lib";\noldName();\n',
        'src/lib.ts': 'export function oldName() {}\n',
      },
      ours: { 'src/use.ts': 'import { oldName } from "./lib";\noldName();\noldName();\n' },
      theirs: {
        'src/use.ts': 'import { newName } from "./lib";\nnewName();\n',
        'src/lib.ts': 'export function newName() {}\n',
      },
      theirsMessage: 'Rename oldName to newName',
    });
    const model = scriptedModel([
      toolTurn([
        ['git_show_commit', { ref: theirs, file: 'src/lib.ts' }],
        ['grep_codebase', { pattern: 'newName', file_pattern: '*.ts' }],
      ]),
      toolTurn([
        ['git_log', { file: 'src/lib.ts', max_count: 5 }],
        ['grep_in_file', { file: 'src/use.ts', pattern: 'Name' }],
      ]),
      toolTurn(
        [['write_file', { file: 'src/use.ts', content: 'import { newName } from "./lib";\nnewName();\nnewName();\n' }]],
        'Theirs renamed the function; keep our extra call with the new name.',
      ),
      toolTurn([['submit_resolution', { file: 'src/use.ts' }]]),
    ]);
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['src/use.ts'], details },
      { gateway: mockGateway(model), git: repo.git },
    );
    expect(out.ok).toBe(true);
    const show = out.toolCalls.find((c) => c.tool === 'git_show_commit')?.output ?? '';
    expect(show).toContain('Rename oldName to newName');
    expect(show).toContain('+export function newName');
    expect(out.toolCalls.find((c) => c.tool === 'grep_codebase')?.output).toContain('src/lib.ts');
    expect(out.toolCalls.find((c) => c.tool === 'git_log')?.output).toMatch(
      /Recent commits for src\/lib\.ts:\n\[BEGIN DATA [0-9a-f]+: git log[^\n]*\]\n {2}[0-9a-f]+ base/,
    );
    expect(readFileSync(join(repo.dir, 'src/use.ts'), 'utf8')).toBe(
      'import { newName } from "./lib";\nnewName();\nnewName();\n',
    );
  });

  it('loops without resolving: stops at the turn limit with a clear failure and restores the file', async () => {
    const { repo } = simpleConflict();
    const before = readFileSync(join(repo.dir, 'conf.txt'), 'utf8');
    const model = scriptedModel(
      Array.from({ length: 20 }, () => toolTurn([['view_conflict', { file: 'conf.txt', conflict_num: 1 }]])),
    );
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['conf.txt'] },
      { gateway: mockGateway(model), git: repo.git, maxTurns: 4 },
    );
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.reason).toBe('turn_limit');
    expect(out.message).toMatch(/within 4 turns/);
    expect(out.turns).toBe(4);
    expect(model.doGenerateCalls).toHaveLength(4);
    expect(readFileSync(join(repo.dir, 'conf.txt'), 'utf8')).toBe(before);
  });

  it('a model that only talks is asked again to use the tools', async () => {
    const { repo } = simpleConflict();
    const model = scriptedModel([
      textTurn('I think theirs is right.'),
      toolTurn([['resolve_conflict', { file: 'conf.txt', conflict_num: 1, choice: 'theirs' }]]),
      toolTurn([['submit_resolution', { file: 'conf.txt' }]]),
    ]);
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['conf.txt'] },
      { gateway: mockGateway(model), git: repo.git },
    );
    expect(out.ok).toBe(true);
    expect(JSON.stringify(model.doGenerateCalls[1]?.prompt)).toContain('Use the tools');
  });

  it('an unknown tool is reported to the model, which then continues', async () => {
    const { repo } = simpleConflict();
    const model = scriptedModel([
      toolTurn([['delete_repository', { really: true }]]),
      toolTurn([['resolve_conflict', { file: 'conf.txt', conflict_num: 1, choice: 'ours' }]]),
      toolTurn([['submit_resolution', { file: 'conf.txt' }]]),
    ]);
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['conf.txt'] },
      { gateway: mockGateway(model), git: repo.git },
    );
    expect(out.ok).toBe(true);
    expect(out.toolCalls[0]?.tool).toBe('delete_repository');
    expect(out.toolCalls[0]?.output).toMatch(/Error:/);
    expect(JSON.stringify(model.doGenerateCalls[1]?.prompt)).toMatch(/delete_repository/);
  });

  it('submit with markers left is rejected; the model fixes it', async () => {
    const { repo } = simpleConflict();
    const model = scriptedModel([
      toolTurn([['submit_resolution', { file: 'conf.txt' }]]),
      toolTurn([['resolve_conflict', { file: 'conf.txt', conflict_num: 1, choice: 'ours' }]]),
      toolTurn([['submit_resolution', { file: 'conf.txt' }]]),
    ]);
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['conf.txt'] },
      { gateway: mockGateway(model), git: repo.git },
    );
    expect(out.ok).toBe(true);
    expect(out.toolCalls[0]?.output).toMatch(/Rejected: conf.txt\n- conflict markers are still present/);
  });

  it('a JSON file that no longer parses is rejected', async () => {
    const { repo } = conflictRepo({
      base: { 'p.json': '{\n  "a": 1\n}\n' },
      ours: { 'p.json': '{\n  "a": 2\n}\n' },
      theirs: { 'p.json': '{\n  "a": 3\n}\n' },
    });
    const model = scriptedModel([
      toolTurn([['resolve_conflict', { file: 'p.json', conflict_num: 1, choice: 'both' }]]),
      toolTurn([['submit_resolution', { file: 'p.json' }]]),
    ]);
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['p.json'] },
      { gateway: mockGateway(model), git: repo.git, maxTurns: 2 },
    );
    expect(out.ok).toBe(false);
    expect(out.toolCalls[1]?.output).toMatch(/not valid JSON/);
  });
  it('invalid tool arguments are reported to the model, which then continues', async () => {
    const { repo } = simpleConflict();
    const model = scriptedModel([
      toolTurn([['resolve_conflict', { file: 'conf.txt', conflict_num: 'first', choice: 'mine' }]]),
      toolTurn([['view_conflict', { file: 'conf.txt', conflict_num: 7 }]]),
      toolTurn([['resolve_conflict', { file: 'conf.txt', conflict_num: 1, choice: 'theirs' }]]),
      toolTurn([['submit_resolution', { file: 'conf.txt' }]]),
    ]);
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['conf.txt'] },
      { gateway: mockGateway(model), git: repo.git },
    );
    expect(out.ok).toBe(true);
    expect(out.toolCalls[0]?.output).toMatch(/^Error:/);
    expect(out.toolCalls[1]?.output).toMatch(/conflict 7 does not exist; conf.txt has 1 conflict/);
  });

  it('CRLF files keep their line endings through a custom resolution', async () => {
    const { repo } = conflictRepo({
      base: { 'w.txt': 'a\r\nb\r\nc\r\n' },
      ours: { 'w.txt': 'a\r\nB1\r\nc\r\n' },
      theirs: { 'w.txt': 'a\r\nB2\r\nc\r\n' },
    });
    const model = scriptedModel([
      toolTurn([['resolve_conflict', { file: 'w.txt', conflict_num: 1, choice: 'custom', custom_text: 'B3' }]]),
      toolTurn([['submit_resolution', { file: 'w.txt' }]]),
    ]);
    const out = await resolveWithModel(
      { workdir: repo.dir, files: ['w.txt'] },
      { gateway: mockGateway(model), git: repo.git },
    );
    expect(out.ok).toBe(true);
    expect(readFileSync(join(repo.dir, 'w.txt'), 'utf8')).toBe('a\r\nB3\r\nc\r\n');
  });
});
