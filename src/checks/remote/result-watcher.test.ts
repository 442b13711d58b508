import { describe, expect, it } from 'vitest';
import { LONGEST_POLL_MS, pollDelay } from './result-watcher.js';

describe('pollDelay', () => {
  it('looks at the configured pace while the checks are young, then at a tenth of the youngest wait', () => {
    expect(pollDelay(250, [])).toBe(250);
    expect(pollDelay(250, [1_000])).toBe(250);
    expect(pollDelay(250, [10_000])).toBe(1_000);
    // The request that waited least sets the pace: its result is the one a long delay would make late.
    expect(pollDelay(250, [600_000, 8_000])).toBe(800);
    expect(pollDelay(10_000, [30 * 60_000])).toBe(LONGEST_POLL_MS);
    // A configured pace slower than the cap is kept.
    expect(pollDelay(120_000, [3_600_000])).toBe(120_000);
  });
});
