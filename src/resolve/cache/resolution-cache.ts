import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { SplintercatError } from '../../errors/index.js';
import type { Git } from '../../git/index.js';
import { rungSchema, withStoredRung } from '../../store/rung.js';
import { systemClock, type Clock } from '../../util/clock.js';
import type { HunkSides } from '../rules/rule.js';
import { hasMarkers } from '../parse/markers.js';

const provenanceSchema = z.object({
  /** ISO time the resolution was stored. */
  when: z.string(),
  /** The merge (run name) it came from, when known. */
  merge: z.string().optional(),
  /** The grid cell `I1-I2`, when known. */
  cell: z.string().optional(),
  file: z.string().optional(),
});

/** A resolution a failed check blamed: never stored or replayed for its key again. */
const blameSchema = z.object({
  /** `answerHash` of the blamed resolution. */
  answer: z.string(),
  when: z.string(),
  reason: z.string(),
  /** The merge (run name) whose check blamed it, when known. */
  merge: z.string().optional(),
  /**
   * Said by another clone (taken in by `absorb`): a claim about that clone's check. It holds for
   * an entry taken in with it, never against an answer this clone's own ladder or person stored.
   */
  imported: z.boolean().optional(),
});

const entrySchema = withStoredRung(
  z.object({
    version: z.literal(1),
    key: z.string(),
    /** The resolution with LF line endings (a replay takes the file's own). */
    resolution: z.string(),
    rung: rungSchema,
    /** Rule name, model id or `person`. */
    by: z.string(),
    provenance: provenanceSchema,
    /** Legacy: the whole entry blamed (entries written before `blamed` existed). */
    invalidated: z.object({ when: z.string(), reason: z.string() }).optional(),
    /** Every resolution of this hunk a failed check blamed, kept across later puts. */
    blamed: z.array(blameSchema).optional(),
    /**
     * Set by `absorb`: the entry came from another clone (the shared cache ref), not from this
     * clone's ladder or person. Whatever the entry says of itself, an absorbed one is marked so.
     */
    imported: z.boolean().optional(),
    /**
     * Set for a whole file's resolution (`file-memory.ts`): the resolution is the person's whole file
     * for that path, byte for byte (its own line endings), or its deletion.
     */
    file: z.object({ path: z.string(), deleted: z.boolean() }).optional(),
  }),
);

export type CacheEntry = z.infer<typeof entrySchema>;
export type CacheBlame = z.infer<typeof blameSchema>;
export type CacheProvenance = Omit<z.infer<typeof provenanceSchema>, 'when'>;

/**
 * The key of a hunk: SHA-256 of its three sides with line endings unified and
 * trailing blanks dropped, so the same conflict replayed on another cell, retry
 * or run (or checked out with CRLF) finds the same entry.
 */
export function cacheKey(sides: HunkSides): string {
  const hash = createHash('sha256');
  hash.update(sides.base === null ? '\u0000none' : `\u0000base\u0000${normalize(sides.base)}`);
  hash.update(`\u0000ours\u0000${normalize(sides.ours)}`);
  hash.update(`\u0000theirs\u0000${normalize(sides.theirs)}`);
  return hash.digest('hex');
}

/** Line endings unified and trailing blanks dropped: how keys and answers are compared. */
function normalize(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(/[ \t]+$/gm, '');
}

/** The identity of one answer to a hunk (as blamed answers are remembered). */
export function answerHash(resolution: string): string {
  return createHash('sha256').update(normalize(resolution)).digest('hex');
}

/** A stored (LF) resolution in the line endings of the file it is replayed into. */
export function withEol(resolution: string, eol: '\n' | '\r\n'): string {
  const lf = resolution.replace(/\r\n/g, '\n');
  return eol === '\r\n' ? lf.replace(/\n/g, '\r\n') : lf;
}

/** True when the entry's own resolution is one a check blamed (or the legacy whole-entry blame). */
function isDead(entry: CacheEntry): boolean {
  if (entry.invalidated !== undefined) return true;
  return blames(entry, answerHash(entry.resolution));
}

/** Whether `answer` is blamed for the entry's hunk: by this clone's checks, or by the clone an imported entry came from. */
function blames(entry: CacheEntry, answer: string): boolean {
  return (entry.blamed ?? []).some((b) => b.answer === answer && (b.imported !== true || entry.imported === true));
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

  /** The live entry for `key`; null when missing, blamed or unreadable. */
  async get(key: string): Promise<CacheEntry | null> {
    const entry = await this.read(key);
    return entry === null || isDead(entry) ? null : entry;
  }

  /** Did a failed check blame this answer to the hunk `key` (in any run)? */
  async isBlamed(key: string, resolution: string): Promise<boolean> {
    const entry = await this.read(key);
    if (entry === null) return false;
    const answer = answerHash(resolution);
    if (entry.invalidated !== undefined && answerHash(entry.resolution) === answer) return true;
    return blames(entry, answer);
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

  /**
   * Store (or replace) the resolution of `key`, with LF line endings. The answers blamed
   * for this key stay blamed; storing one of them again is refused (null): a blamed
   * answer is never replayed, in this run or a later one.
   */
  async put(
    key: string,
    value: {
      resolution: string;
      rung: CacheEntry['rung'];
      by: string;
      provenance?: CacheProvenance;
      file?: CacheEntry['file'];
    },
  ): Promise<CacheEntry | null> {
    const known = await this.read(key);
    const blamed = [
      ...(known?.blamed ?? []),
      ...(known?.invalidated ? [{ answer: answerHash(known.resolution), ...known.invalidated }] : []),
    ];
    if (blamed.some((b) => b.answer === answerHash(value.resolution) && b.imported !== true)) return null;
    const entry: CacheEntry = {
      version: 1,
      key,
      // A hunk's answer takes the line endings of the file it is replayed into; a whole file keeps its own.
      resolution: value.file ? value.resolution : value.resolution.replace(/\r\n/g, '\n'),
      rung: value.rung,
      by: value.by,
      provenance: { when: this.clock.now().toISOString(), ...value.provenance },
      ...(value.file ? { file: value.file } : {}),
      ...(blamed.length > 0 ? { blamed } : {}),
    };
    await this.write(entry);
    return entry;
  }

  /**
   * Blame the entry's resolution (a check failed because of it): it is no longer replayed,
   * and the same answer is refused if offered again. The entry stays, for the record and
   * for `cache list`. False when there was no such entry.
   */
  async invalidate(key: string, reason: string, merge?: string): Promise<boolean> {
    const entry = await this.read(key);
    if (entry === null) return false;
    const answer = answerHash(entry.resolution);
    const blamed = (entry.blamed ?? []).filter((b) => b.answer !== answer);
    blamed.push({ answer, when: this.clock.now().toISOString(), reason, ...(merge ? { merge } : {}) });
    const { invalidated: _legacy, ...rest } = entry;
    await this.write({ ...rest, blamed });
    return true;
  }

  /** Forget one entry, blame and all. False when there was none. */
  async remove(key: string): Promise<boolean> {
    const path = this.pathOf(key);
    try {
      await rm(path);
      return true;
    } catch {
      return false;
    }
  }

  /** Forget every entry (`blamedOnly`: only those whose resolution is blamed); the number removed. */
  async clear(options: { blamedOnly?: boolean } = {}): Promise<number> {
    let removed = 0;
    for (const entry of await this.list()) {
      if (options.blamedOnly && !isDead(entry)) continue;
      if (await this.remove(entry.key)) removed++;
    }
    return removed;
  }

  /**
   * Take in an entry from elsewhere (another clone's cache, shared through git): kept as it is
   * when this cache has none for its key; otherwise this cache's answer stays, and the other
   * side's blames are kept as its claims (they never disable an answer this clone stored). Returns whether anything changed. A malformed entry, or one
   * whose answer still holds conflict markers, is ignored: what another clone pushed is data to
   * validate, never an answer taken as it is. A new entry is kept marked `imported`.
   */
  async absorb(value: unknown): Promise<boolean> {
    const parsed = entrySchema.safeParse(value);
    if (!parsed.success || !/^[0-9a-f]{64}$/.test(parsed.data.key)) return false;
    const theirs = parsed.data;
    const mine = await this.read(theirs.key);
    // Another clone's blames are its claims: marked so, they never disable this clone's own answer.
    const claimed = (theirs.blamed ?? []).map((b) => ({ ...b, imported: true }));
    if (mine === null) {
      if (hasMarkers(theirs.resolution)) return false;
      await this.write({ ...theirs, ...(claimed.length > 0 ? { blamed: claimed } : {}), imported: true });
      return true;
    }
    const known = new Set((mine.blamed ?? []).map((b) => b.answer));
    const added = claimed.filter((b) => !known.has(b.answer));
    if (added.length === 0) return false;
    await this.write({ ...mine, blamed: [...(mine.blamed ?? []), ...added] });
    return true;
  }

  /** The file an entry is kept in (for sharing the cache through git). */
  fileOf(key: string): string {
    return this.pathOf(key);
  }

  /** True when the entry is no longer replayed (its resolution was blamed). */
  static isBlamedEntry(entry: CacheEntry): boolean {
    return isDead(entry);
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
