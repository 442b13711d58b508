import { describe, expect, it } from 'vitest';
import { REDACTED, StreamRedactor } from './redact.js';

/** Feed `text` in chunks cut at `cuts` and join what comes out. */
function streamed(secrets: string[], chunks: Array<string | Buffer>): string {
  const r = new StreamRedactor(secrets);
  const out = chunks.map((c) => r.push(typeof c === 'string' ? Buffer.from(c) : c));
  return Buffer.concat([...out, r.end()]).toString('utf8');
}

describe('StreamRedactor', () => {
  const key = 'sk-or-v1-abcdef0123456789';

  it('redacts a secret split across chunks at every position', () => {
    const text = `before ${key} after ${key}`;
    for (let cut = 0; cut <= text.length; cut++) {
      for (const second of [cut, Math.min(text.length, cut + 3)]) {
        expect(streamed([key], [text.slice(0, cut), text.slice(cut, second), text.slice(second)])).toBe(
          `before ${REDACTED} after ${REDACTED}`,
        );
      }
    }
  });

  it('holds back only what may start a secret, and releases it at the end', () => {
    const r = new StreamRedactor([key]);
    expect(r.push(Buffer.from('abc sk-or')).toString()).toBe('abc ');
    expect(r.push(Buffer.from('-v1-zzz')).toString()).toBe('sk-or-v1-zzz');
    expect(r.push(Buffer.from('x sk')).toString()).toBe('x ');
    expect(r.end().toString()).toBe('sk');
  });

  it('one byte at a time, several secrets (one inside another), bytes that are not UTF-8 kept', () => {
    const inner = 'hunter2-password';
    const text = Buffer.concat([Buffer.from([0xe9, 0xff]), Buffer.from(` ${key} x${inner}y ${key}${inner}`)]);
    const r = new StreamRedactor([inner, key, `${key}${inner}`]);
    const out = Buffer.concat([...[...text].map((b) => r.push(Buffer.from([b]))), r.end()]);
    expect(out.subarray(0, 2)).toEqual(Buffer.from([0xe9, 0xff]));
    const text2 = out.subarray(2).toString();
    expect(text2.startsWith(` ${REDACTED} x${REDACTED}y ${REDACTED}`)).toBe(true);
    expect(text2).not.toMatch(/sk-or|hunter2/);
  });

  it('without secrets it passes chunks through', () => {
    const chunk = Buffer.from('plain');
    expect(new StreamRedactor(['short']).push(chunk)).toBe(chunk);
  });
});
