import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { ConfigError } from '../errors/index.js';

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
  for (const [keys, value] of entries) doc.setIn(keys, doc.createNode(value, { flow: true }));
  writeFileSync(path, doc.toString({ lineWidth: 0 }));
}
