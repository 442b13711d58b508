/** The first 12 hex digits of an object id ('' for none): how every message and report names a commit. */
export function shortOid(oid: string | null | undefined): string {
  return oid ? oid.slice(0, 12) : '';
}
