import { appendFileSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { readRegular } from '../../util/safe-read.js';

/** The newest refusals a run's file keeps (what `status` shows): a remote pushing junk for ever never grows it past this. */
const KEPT = 200;
/** The most of the file read back; each line is short (a ref, a path and a reason). */
const FILE_BYTES = 256 * 1024;

/** One object from the remote that was not used: where it was found (a ref, a ref and a path) and why. */
export interface RejectedObject {
  where: string;
  why: string;
}

/**
 * The objects from the remote a process refused (too large, of the wrong type, malformed): each
 * is skipped and named once, so the run goes on with the rest and says what it left out. The
 * first sighting of each is passed to `say` (the log); `list` is what `status` shows.
 */
export class RejectedObjects {
  private readonly seen = new Map<string, RejectedObject>();

  /**
   * `file`: the run's own record of what it refused (JSON lines), read back here and appended to,
   * so `status` names a hostile push after the publication that replaced it on the remote.
   */
  constructor(
    private readonly say: (rejected: RejectedObject, line: string) => void = () => undefined,
    private readonly file: string | null = null,
  ) {
    for (const [id, rejected] of readKept(file)) this.seen.set(id, rejected);
  }

  /** Note that the object at `where` (with id `oid`, when known) was skipped because `why`; `said`: the caller told the person already. */
  add(where: string, why: string, oid = '', said = false): void {
    const id = `${where}\0${oid}`;
    if (this.seen.has(id)) return;
    const rejected = { where, why };
    this.seen.set(id, rejected);
    if (!said) this.say(rejected, rejectedLine(rejected));
    // Memory and the file stay bounded however much junk a remote holds: the newest KEPT.
    if (this.seen.size > KEPT) this.seen.delete(this.seen.keys().next().value as string);
    if (this.file === null) return;
    mkdirSync(dirname(this.file), { recursive: true });
    const line = `${JSON.stringify({ id, ...rejected })}\n`;
    if (existsSync(this.file) && statSync(this.file).size + line.length > FILE_BYTES)
      writeFileSync(this.file, [...this.seen].map(([k, v]) => `${JSON.stringify({ id: k, ...v })}\n`).join(''));
    else appendFileSync(this.file, line);
  }

  /** Every object refused so far (the newest the run's file keeps, then this process's), in the order first seen. */
  list(): RejectedObject[] {
    return [...this.seen.values()].slice(-KEPT);
  }
}

/** The refusals a run's file holds: its last lines, each typed; a line that is not one is left out. */
function readKept(file: string | null): Array<[string, RejectedObject]> {
  if (file === null || !existsSync(file)) return [];
  const read = readRegular(file, { within: dirname(file), maxBytes: FILE_BYTES });
  if (!read.ok) return [];
  const out: Array<[string, RejectedObject]> = [];
  for (const line of read.bytes
    .toString('utf8')
    .split('\n')
    .slice(read.truncated ? 1 : 0)) {
    try {
      const v = JSON.parse(line) as Record<string, unknown>;
      if (typeof v.id === 'string' && typeof v.where === 'string' && typeof v.why === 'string')
        out.push([v.id, { where: v.where, why: v.why }]);
    } catch {
      // An unfinished last line (a process killed while appending) is no refusal.
    }
  }
  return out.slice(-KEPT);
}

/** `WHERE: WHY; skipped`, the one line said of a refused object. */
export function rejectedLine(rejected: RejectedObject): string {
  return `${rejected.where}: ${rejected.why}; skipped`;
}
