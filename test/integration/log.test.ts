import { readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/create-logger.js';
import { redactSecrets, REDACTED } from '../../src/log/redact.js';
import { tempDir } from '../helpers/git-repo.js';

function capture() {
  const chunks: string[] = [];
  return { stream: { write: (c: string) => void chunks.push(c) }, text: () => chunks.join('') };
}

describe('logging', () => {
  it('console at INFO (DEBUG with verbose), JSON DEBUG file, decisions log with one line per decision', () => {
    const dir = tempDir();
    const consoleOut = capture();
    const fixed = new Date(2026, 0, 15, 14, 32, 15);
    const { logger, logFile, decisionsFile, close } = createLogger({
      logDir: dir,
      consoleStream: consoleOut.stream,
      now: () => fixed,
    });
    logger.debug({ step: 1 }, 'a debug detail');
    logger.info({ cell: '3-4' }, 'merged a cell');
    logger
      .child({ component: 'planner' })
      .decision({ strategy: 'batch' }, '[planner] Strategy selected: batch (size=10)');
    logger.warn('something odd');
    close();
    expect(consoleOut.text()).toContain('merged a cell');
    expect(consoleOut.text()).not.toContain('a debug detail');
    const lines = readFileSync(logFile as string, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; level: number });
    expect(lines.map((l) => l.msg)).toEqual([
      'a debug detail',
      'merged a cell',
      '[planner] Strategy selected: batch (size=10)',
      'something odd',
    ]);
    expect(readFileSync(decisionsFile as string, 'utf8')).toBe(
      '2026-01-15 14:32:15 | INFO  | [planner] Strategy selected: batch (size=10)\n2026-01-15 14:32:15 | WARN  | something odd\n',
    );
    const verboseOut = capture();
    const verbose = createLogger({ verbose: true, consoleStream: verboseOut.stream });
    verbose.logger.debug('now visible');
    expect(verboseOut.text()).toContain('now visible');
  });

  it('redacts secrets everywhere: key-named values, Bearer headers, and the configured key inside any text', () => {
    const dir = tempDir();
    const consoleOut = capture();
    const key = 'sk-or-v1-abcdef0123456789abcdef';
    const { logger, logFile, decisionsFile, close } = createLogger({
      logDir: dir,
      consoleStream: consoleOut.stream,
      secrets: ['my-private-value-42'],
    });
    logger.info(
      {
        llm: { api_key: 'plain-key-value', apiToken: 'tok-123456' },
        headers: { Authorization: 'Bearer abc.def.ghi.jkl' },
      },
      'calling the model',
    );
    logger.decision(`request failed with key ${key} and my-private-value-42`);
    logger.error({ err: new Error('401 for Bearer zzzzzzzzzzzz') }, 'auth failed');
    close();
    const everything = [
      consoleOut.text(),
      readFileSync(logFile as string, 'utf8'),
      readFileSync(decisionsFile as string, 'utf8'),
    ].join('\n');
    for (const secret of [
      'plain-key-value',
      'tok-123456',
      'abc.def.ghi.jkl',
      key,
      'my-private-value-42',
      'zzzzzzzzzzzz',
    ])
      expect(everything).not.toContain(secret);
    expect(everything).toContain(REDACTED);
    expect(redactSecrets({ a: { b: [{ OPENAI_API_KEY: 'x1' }] }, note: 'ok' })).toEqual({
      a: { b: [{ OPENAI_API_KEY: REDACTED }] },
      note: 'ok',
    });
  });

  it('rotates the file past the size limit and deletes rotated files older than the retention', () => {
    const dir = tempDir();
    const old = join(dir, 'splintercat.20200101-000000.log');
    writeFileSync(old, 'ancient\n');
    utimesSync(old, new Date('2020-01-01'), new Date('2020-01-01'));
    const recent = join(dir, 'splintercat.20990101-000000.log');
    writeFileSync(recent, 'recent\n');
    const { logger, close } = createLogger({
      logDir: dir,
      maxSizeMb: 0.001,
      retentionDays: 7,
      consoleStream: capture().stream,
    });
    for (let i = 0; i < 40; i++) logger.debug({ i, pad: 'x'.repeat(50) }, 'filler');
    close();
    const files = readdirSync(dir).filter((f) => f.startsWith('splintercat'));
    expect(files).not.toContain('splintercat.20200101-000000.log');
    expect(files).toContain('splintercat.20990101-000000.log');
    expect(files.filter((f) => /^splintercat\.\d{8}-\d{6}(-\d+)?\.log$/.test(f)).length).toBeGreaterThan(1);
    for (const f of files) expect(readFileSync(join(dir, f)).length).toBeLessThanOrEqual(1100);
  });
});
