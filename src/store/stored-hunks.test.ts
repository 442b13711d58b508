import { describe, expect, it } from 'vitest';
import { handoffSchema } from './handoff-state.js';
import { fileHunks, hunksKeyed } from './stored-hunks.js';

describe("a hand-off file's hunks under the key earlier versions stored", () => {
  it('reads a stored hand-off, and a file written with its hunks keeps the same key', () => {
    const stored = {
      reason: 'a person is needed',
      files: ['/w/f.txt'],
      commands: [],
      where: '/w',
      conflicts: [
        {
          conflict: '1-1',
          worktree: '/w',
          files: [
            {
              path: 'f.txt',
              kind: 'content',
              hunks: 1,
              instructions: 'edit f.txt',
              blocks: [{ hunk: 2, startLine: 1, endLine: 5, take: { ours: 'splintercat take ours f.txt 2' } }],
            },
          ],
        },
      ],
    };
    const file = handoffSchema.parse(stored).conflicts[0]?.files[0];
    expect(file && fileHunks(file)?.map((h) => h.hunk)).toEqual([2]);
    const written = JSON.parse(JSON.stringify({ path: 'f.txt', ...hunksKeyed([]) })) as Record<string, unknown>;
    expect(Object.keys(written)).toEqual(['path', 'blocks']);
  });
});
