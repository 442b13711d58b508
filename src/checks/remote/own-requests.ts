import type { Git } from '../../git/index.js';
import { parseRequestMessage, type CheckRequest } from './protocol.js';

/**
 * The check requests this clone sent and has not settled, kept in its own refs: one local ref per
 * request, `refs/splintercat-own/RUN/checks/KEY/ID`, at the request commit, whose message holds
 * the request and its nonce. These refs are never pushed, and no fetch of splintercat writes under
 * them, so what the remote holds cannot add a request (or a nonce) here: a result is taken only for
 * one of these. A later process of the run (a resumed drive) finds the requests an earlier one left.
 */
export class OwnRequests {
  constructor(
    private readonly git: Git,
    private readonly run: string,
  ) {}

  private prefix(key: string): string {
    return `refs/splintercat-own/${this.run}/checks/${key}/`;
  }

  /** The requests kept for check key `key`, each with its request commit. */
  async list(key: string): Promise<Array<{ request: CheckRequest; commit: string }>> {
    const out: Array<{ request: CheckRequest; commit: string }> = [];
    for (const { ref, oid } of await this.git.forEachRef(this.prefix(key))) {
      let request: CheckRequest | null = null;
      try {
        request = parseRequestMessage(await this.git.text(['log', '-1', '--format=%B', oid]));
      } catch {
        // A request of another protocol version (an older splintercat's): not one this clone can settle.
      }
      if (request === null || ref !== this.prefix(key) + request.id) await this.git.deleteRef(ref);
      else out.push({ request, commit: oid });
    }
    return out;
  }

  /** Keep `request` (at its request commit) before it is pushed, so no request of ours is ever unknown here. */
  async keep(key: string, request: CheckRequest, commit: string): Promise<void> {
    await this.git.updateRef(this.prefix(key) + request.id, commit);
  }

  /** Forget one request (its result was rejected, or it was never pushed and is given up). */
  async forget(key: string, id: string): Promise<void> {
    await this.git.deleteRef(this.prefix(key) + id);
  }

  /** Forget every request of check key `key`: the check is settled (answered or given up). */
  async settle(key: string): Promise<void> {
    const refs = await this.git.forEachRef(this.prefix(key));
    if (refs.length > 0) await this.git.updateRefs(refs.map((r) => ({ ref: r.ref, delete: true, oldOid: r.oid })));
  }
}
