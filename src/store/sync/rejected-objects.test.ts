import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/git-repo.js';
import { RejectedObjects } from './rejected-objects.js';

describe('RejectedObjects', () => {
  it('names each refusal once, keeps them for the next process, and stays bounded however many come', () => {
    const file = join(tempDir(), 'run', 'rejected.jsonl');
    const said: string[] = [];
    const first = new RejectedObjects((_r, line) => said.push(line), file);
    first.add('refs/splintercat/up/records:cell/00/x.json', 'not a record', 'a1');
    first.add('refs/splintercat/up/records:cell/00/x.json', 'not a record', 'a1');
    first.add('refs/splintercat/up/machines/m', 'its configuration is not taken', '', true);
    expect(said).toEqual(['refs/splintercat/up/records:cell/00/x.json: not a record; skipped']);
    // A later process (status) reads what this one refused.
    expect(new RejectedObjects(() => undefined, file).list()).toEqual([
      { where: 'refs/splintercat/up/records:cell/00/x.json', why: 'not a record' },
      { where: 'refs/splintercat/up/machines/m', why: 'its configuration is not taken' },
    ]);

    const flood = new RejectedObjects(() => undefined, file);
    for (let k = 0; k < 5000; k++)
      flood.add(`refs/splintercat/up/claims/${k}-${'x'.repeat(200)}`, 'not a claim', `${k}`);
    expect(statSync(file).size).toBeLessThan(512 * 1024);
    const kept = new RejectedObjects(() => undefined, file).list();
    expect(kept.length).toBeLessThanOrEqual(200);
    expect(kept.at(-1)?.where).toMatch(/claims\/4999-/);
  });
});
