import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { ConfigError } from '../errors/index.js';
import { oldSpellingsOf } from './old-keys.js';

/**
 * Set keys of a YAML configuration file, keeping its comments and layout (the `yaml` package's
 * document API); a missing file starts from `initial`. Each entry is a key path and its value.
 */
export function setKeysInFile(path: string, entries: Array<[string[], unknown]>, initial: string): void {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : initial;
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => ({ path: '', message: e.message })),
      undefined,
      {
        what: `${path} is not valid YAML`,
        why: doc.errors[0]?.message ?? '',
        fix: 'Fix the file, or move it away and run the command again',
        where: path,
      },
    );
  }
  for (const [keys, value] of entries) {
    doc.setIn(keys, doc.createNode(value, { flow: true }));
    // The value written now supersedes one under an earlier spelling, which would be refused on reading.
    for (const old of oldSpellingsOf(keys)) doc.deleteIn(old);
  }
  writeFileSync(path, doc.toString({ lineWidth: 0 }));
}
