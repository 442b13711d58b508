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

  constructor(private readonly say: (rejected: RejectedObject, line: string) => void = () => undefined) {}

  /** Note that the object at `where` (with id `oid`, when known) was skipped because `why`. */
  add(where: string, why: string, oid = ''): void {
    const id = `${where}\0${oid}`;
    if (this.seen.has(id)) return;
    const rejected = { where, why };
    this.seen.set(id, rejected);
    this.say(rejected, rejectedLine(rejected));
  }

  /** Every object refused so far, in the order first seen. */
  list(): RejectedObject[] {
    return [...this.seen.values()];
  }
}

/** `WHERE: WHY; skipped`, the one line said of a refused object. */
export function rejectedLine(rejected: RejectedObject): string {
  return `${rejected.where}: ${rejected.why}; skipped`;
}
