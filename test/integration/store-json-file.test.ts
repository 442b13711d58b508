import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tempDir } from '../helpers/git-repo.js';
import { backupPath, keepCorrupt, readJsonFile, writeJsonFile } from '../../src/store/json-file.js';
import { SplintercatError } from '../../src/errors/index.js';

const spec = { schema: z.object({ version: z.literal(1), count: z.number().int() }), version: 1 };

describe('json-file', () => {
  it('writes atomically, keeps the previous version as .bak, leaves no temp files', () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    writeJsonFile(file, { version: 1, count: 1 }, spec);
    expect(existsSync(backupPath(file))).toBe(false);
    writeJsonFile(file, { version: 1, count: 2 }, spec);
    writeJsonFile(file, { version: 1, count: 3 }, spec);
    expect(readJsonFile(file, spec)).toEqual({ ok: true, value: { version: 1, count: 3 } });
    expect(readJsonFile(backupPath(file), spec)).toEqual({ ok: true, value: { version: 1, count: 2 } });
    expect(readdirSync(dir).sort()).toEqual(['state.json', 'state.json.bak']);
  });

  it('reports missing, parse, schema and version problems as values', () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    expect(readJsonFile(file, spec)).toMatchObject({ ok: false, problem: 'missing' });
    writeFileSync(file, '{"version": 1, "cou');
    expect(readJsonFile(file, spec)).toMatchObject({ ok: false, problem: 'parse' });
    writeFileSync(file, '');
    expect(readJsonFile(file, spec)).toMatchObject({ ok: false, problem: 'parse', detail: 'the file is empty' });
    writeFileSync(file, '{"version": 1, "count": "x"}');
    const schema = readJsonFile(file, spec);
    expect(schema).toMatchObject({ ok: false, problem: 'schema' });
    expect(schema.ok ? '' : schema.detail).toContain('count');
    writeFileSync(file, '[1]');
    expect(readJsonFile(file, spec)).toMatchObject({ ok: false, problem: 'schema' });
    writeFileSync(file, '{"version": 7, "count": 1}');
    expect(readJsonFile(file, spec)).toMatchObject({
      ok: false,
      problem: 'version',
      detail: expect.stringContaining('newer splintercat'),
    });
  });

  it('never replaces a good backup with a corrupted main file', () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    writeJsonFile(file, { version: 1, count: 1 }, spec);
    writeJsonFile(file, { version: 1, count: 2 }, spec);
    writeFileSync(file, '{"trunc');
    writeJsonFile(file, { version: 1, count: 3 }, spec);
    expect(readJsonFile(backupPath(file), spec)).toEqual({ ok: true, value: { version: 1, count: 1 } });
    expect(readJsonFile(file, spec)).toEqual({ ok: true, value: { version: 1, count: 3 } });
  });

  it('refuses to write an invalid value and leaves the file untouched', () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    writeJsonFile(file, { version: 1, count: 1 }, spec);
    const before = readFileSync(file, 'utf8');
    let caught: unknown;
    try {
      writeJsonFile(file, { version: 1, count: 1.5 }, spec);
    } catch (error) {
      caught = error;
    }
    expect(SplintercatError.isInstance(caught) && caught.code).toBe('state_invalid_write');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('keepCorrupt moves a file aside with a timestamp', () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    expect(keepCorrupt(file)).toBeNull();
    writeFileSync(file, 'garbage');
    const kept = keepCorrupt(file, new Date('2026-01-02T03:04:05.678Z'));
    expect(kept).toBe(`${file}.corrupt-20260102T030405678Z`);
    expect(readFileSync(kept as string, 'utf8')).toBe('garbage');
    expect(existsSync(file)).toBe(false);
  });
});

describe('json-file temp files', () => {
  it('a temp file of a dead writer is removed by the next write; a live one is left alone', async () => {
    const { spawnSync } = await import('node:child_process');
    const dead = Number(
      spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout,
    );
    const dir = tempDir();
    const file = join(dir, 'state.json');
    writeFileSync(join(dir, `.state.json.tmp-${dead}-abc`), '{"half');
    writeFileSync(join(dir, `.state.json.tmp-${process.ppid}-def`), '{"busy');
    writeJsonFile(file, { version: 1, count: 1 }, spec);
    expect(readdirSync(dir).sort()).toEqual([`.state.json.tmp-${process.ppid}-def`, 'state.json']);
  });
});
