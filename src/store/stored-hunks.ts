/**
 * The JSON key a file's conflict hunks are stored under (the run state's hand-off, the journal)
 * and printed under (`status --json`, `take --json`, `resolve --json`): `blocks`, as earlier
 * versions wrote it, so that a stored run and a script reading the output go on working. This
 * module is the one place that spells it; everything else names them hunks.
 */
export const HUNKS_KEY = 'blocks';

/** `hunks` under the stored key, to spread into a file's record. */
export function hunksKeyed<T>(hunks: T): { [HUNKS_KEY]: T } {
  return { [HUNKS_KEY]: hunks };
}

/** The hunks of a file's record (absent: a file decided whole, or an amended resolution). */
export function fileHunks<T>(file: { [HUNKS_KEY]?: T }): T | undefined {
  return file[HUNKS_KEY];
}
