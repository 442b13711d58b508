import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { SplintercatError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import { systemClock, type Clock } from '../../util/clock.js';
import type { HunkSides } from '../rules/rule.js';

const rungSchema = z.enum(['cache', 'rule', 'model', 'human']);

const provenanceSchema = z.object({
  /** ISO time the resolution was stored. */
  when: z.string(),
  /** The merge (run name) it came from, when known. */
  merge: z.string().optional(),
  /** The grid cell `I1-I2`, when known. */
  cell: z.string().optional(),
  file: z.string().optional(),
});

const entrySchema = z.object({
  version: z.literal(1),
  key: z.string(),
  resolution: z.string(),
  rung: rungSchema,
  /** Rule name, model id or `human`. */
  by: z.string(),
  provenance: provenanceSchema,
  invalidated: z.object({ when: z.string(), reason: z.string() }).optional(),
});

export type CacheEntry = z.infer<typeof entrySchema>;
export type CacheProvenance = Omit<z.infer<typeof provenanceSchema>, 'when'>;

/**
 * The key of a hunk: SHA-256 of its three sides with line endings unified and
 * trailing blanks dropped, so the same conflict replayed on another cell, retry
 * or run (or checked out with CRLF) finds the same entry.
 */
export function cacheKey(sides: HunkSides): string {
  const norm = (s: string): string => s.replace(/\r\n/g, '\n').replace(/[ \t]+$/gm, '');
  const hash = createHash('sha256');
  hash.update(sides.base === null ? '\u0000none' : `\u0000base\u0000${norm(sides.base)}`);
  hash.update(`\u0000ours\u0000${norm(sides.ours)}`);
  hash.update(`\u0000theirs\u0000${norm(sides.theirs)}`);
  return hash.digest('hex');
}

/**
 * rerere for splintercat: resolutions by hunk key under
 * `<git common dir>/splintercat/cache/`, one JSON file per entry written to a
 * temp file and renamed into place, so concurrent writers (cells resolved in
 * parallel, several processes) never leave a torn entry; the last writer wins.
 */
export class ResolutionCache {
  constructor(
    readonly dir: string,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The cache of the repository `git` works on (shared by all its worktrees). */
  static async forRepo(git: Git, clock: Clock = systemClock): Promise<ResolutionCache> {
    const common = await git.gitDir(true);
    return new ResolutionCache(join(common, 'splintercat', 'cache'), clock);
  }

  key(sides: HunkSides): string {
    return cacheKey(sides);
  }

  private pathOf(key: string): string {
    if (!/^[0-9a-f]{64}$/.test(key)) {
      throw new SplintercatError('cache_key_invalid', {
        what: `Not a resolution cache key: ${key}`,
        why: 'cache keys are 64 hex digits made by cacheKey()',
        fix: 'Pass a key returned by ResolutionCache.key() or listed by ResolutionCache.list()',
        where: this.dir,
      });
    }
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /** The live entry for `key`; null when missing, invalidated or unreadable. */
  async get(key: string): Promise<CacheEntry | null> {
    const entry = await this.read(key);
    return entry === null || entry.invalidated !== undefined ? null : entry;
  }

  /** The entry even when invalidated (for reports); null when missing or unreadable. */
  async read(key: string): Promise<CacheEntry | null> {
    const path = this.pathOf(key);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      return null;
    }
    try {
      const parsed = entrySchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : null;
    } catch {
      // A damaged entry is a miss, never a crash: the ladder resolves again and overwrites it.
      return null;
    }
  }

  /** Store (or replace) the resolution of `key`. */
  async put(
    key: string,
    value: { resolution: string; rung: CacheEntry['rung']; by: string; provenance?: CacheProvenance },
  ): Promise<CacheEntry> {
    const entry: CacheEntry = {
      version: 1,
      key,
      resolution: value.resolution,
      rung: value.rung,
      by: value.by,
      provenance: { when: this.clock.now().toISOString(), ...value.provenance },
    };
    await this.write(entry);
    return entry;
  }

  /**
   * Mark an entry as blamed (a check failed because of it): it is kept for the
   * record but no longer reused. False when there was no such entry.
   */
  async invalidate(key: string, reason: string): Promise<boolean> {
    const entry = await this.read(key);
    if (entry === null) return false;
    await this.write({ ...entry, invalidated: { when: this.clock.now().toISOString(), reason } });
    return true;
  }

  /** Every readable entry (live and invalidated). */
  async list(): Promise<CacheEntry[]> {
    let shards: string[];
    try {
      shards = await readdir(this.dir);
    } catch {
      return [];
    }
    const out: CacheEntry[] = [];
    for (const shard of shards.sort()) {
      let names: string[];
      try {
        names = await readdir(join(this.dir, shard));
      } catch {
        continue;
      }
      for (const name of names.sort()) {
        if (!name.endsWith('.json')) continue;
        const entry = await this.read(name.slice(0, -'.json'.length));
        if (entry !== null) out.push(entry);
      }
    }
    return out;
  }

  private async write(entry: CacheEntry): Promise<void> {
    const target = this.pathOf(entry.key);
    await mkdir(join(this.dir, entry.key.slice(0, 2)), { recursive: true });
    const temp = `${target}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
    try {
      await writeFile(temp, `${JSON.stringify(entry, null, 2)}\n`, { flag: 'wx' });
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }
}
