import { describe, expect, it } from 'vitest';
import { Git } from '../../git/index.js';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { Claims, type Claim } from './claims.js';

const now = new Date('2026-06-01T12:00:00.000Z');
const claim = (expires: string): Claim => ({ conflict: '1-1', machine: 'm', name: 'n', email: 'e', at: '', expires });

describe('Claims.expired', () => {
  it('a lease holds until its time; a time that does not parse holds nothing', () => {
    const git = new Git({ cwd: TestRepo.create().dir });
    try {
      const claims = new Claims(git, 'up', {
        remote: 'origin',
        machine: 'here',
        person: { name: 'P', email: 'p@x' },
        leaseSeconds: 60,
        clock: { now: () => now },
      });
      expect(claims.expired(claim('2026-06-01T12:00:01.000Z'))).toBe(false);
      expect(claims.expired(claim('2026-06-01T12:00:00.000Z'))).toBe(true);
      // A teammate's forged blob: "never" or garbage must not hold a conflict for ever.
      for (const forged of ['never', '', 'x\nThen:']) expect(claims.expired(claim(forged))).toBe(true);
      // Nor for a thousand years: no clone takes a lease longer than sync.lease allows.
      expect(claims.expired(claim('2999-01-01T00:00:00.000Z'))).toBe(true);
      expect(claims.expired(claim('2026-06-08T11:59:59.000Z'))).toBe(false);
    } finally {
      git.close();
    }
  });
});
