import { describe, expect, it } from 'vitest';
import { mapPipelined, mapPool } from './pool.js';

/** A gate the test opens by hand: no timers. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe('mapPool', () => {
  it('keeps input order and never runs more than limit at once', async () => {
    let running = 0;
    let most = 0;
    const out = await mapPool([5, 1, 4, 2, 3], 2, async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setImmediate(r));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });
});

describe('mapPipelined', () => {
  it('prepares the next items while the first runs are still in flight, and keeps input order', async () => {
    const events: string[] = [];
    const first = gate();
    const out = mapPipelined(
      ['a', 'b', 'c'],
      1,
      async (item) => {
        events.push(`prepare ${item}`);
        return item.toUpperCase();
      },
      async (prepared, item) => {
        events.push(`run ${item}`);
        if (item === 'a') await first.wait;
        return `${prepared}!`;
      },
    );
    // While run a waits, preparation goes on: b and c are ready before a finishes.
    while (!events.includes('prepare c')) await new Promise((r) => setImmediate(r));
    expect(events).not.toContain('run b');
    first.open();
    expect(await out).toEqual(['A!', 'B!', 'C!']);
    expect(events).toEqual(['prepare a', 'run a', 'prepare b', 'prepare c', 'run b', 'run c']);
  });

  it('a failed preparation rejects the map', async () => {
    await expect(
      mapPipelined(
        [1, 2],
        2,
        async (n) => {
          if (n === 2) throw new Error('no worktree');
          return n;
        },
        async (n) => n,
      ),
    ).rejects.toThrow('no worktree');
  });
});
