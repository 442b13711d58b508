import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/git-repo.js';
import { forkInstructions } from './fork-instructions.js';

describe('resolve.instructions', () => {
  it('is the text written, or the file it names (relative to the repository)', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs', 'merging.md'), 'Keep the MOS calling convention.\n');
    expect(forkInstructions('docs/merging.md', dir)).toBe('Keep the MOS calling convention.\n');
    expect(forkInstructions('  Prefer upstream in tests/.  ', dir)).toBe('Prefer upstream in tests/.');
    expect(forkInstructions('docs/missing.md', dir)).toBe('docs/missing.md');
    expect(forkInstructions('', dir)).toBe('');
  });
});
