/**
 * Printing text that someone else chose (file names from upstream, branch names, check output, a
 * model's words) to a terminal or into a command a person runs. Control characters would move the
 * cursor, set the clipboard (OSC 52) or the title, end a comment and start a command (a newline
 * in a file name); format characters reorder or hide text (bidi overrides, zero-width).
 */

import { redactKnown } from './secret-registry.js';

/* eslint-disable no-control-regex -- matching control characters is what this module is for */

/** Never raw in a line of text: C0 controls but tab and newline, DEL, C1, and invisible format characters. */
const UNSAFE_IN_TEXT =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;
/** Never raw in a name (a path, a branch): the same, and tab and newline too. */
const UNSAFE_IN_NAME =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\u001b': '\\e' };

/** The visible escape of one character: `\n`, `\e`, `\x07`, `\u202e`. */
function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named !== undefined) return named;
  const code = ch.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Whether a name prints as itself: no control or format character. */
export function isPrintableName(name: string): boolean {
  UNSAFE_IN_NAME.lastIndex = 0;
  return !UNSAFE_IN_NAME.test(name);
}

/**
 * A name (path, branch, ref) for a line of prose: itself when printable, else in double quotes
 * with each control or format character escaped (`"n\ntouch x;#"`), so it cannot break the line.
 */
export function printableName(name: string): string {
  if (isPrintableName(name)) return name;
  return `"${name.replace(/["\\]/g, '\\$&').replace(UNSAFE_IN_NAME, escapeChar)}"`;
}

/** Text for a terminal or a report (lines kept): each control or format character but tab, newline and CR LF escaped. */
export function printableText(text: string): string {
  text = redactKnown(text);
  // A Windows line end (CR LF) is a line end, not a control sequence.
  return text.replace(UNSAFE_IN_TEXT, (ch, at: number) => (ch === '\r' && text[at + 1] === '\n' ? ch : escapeChar(ch)));
}

/** Never raw in one line of prose: every control and format character but tab (newline and CR included). */
const UNSAFE_IN_LINE =
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g;

/**
 * Text that must stay one line (a line of a commit message, of a hand-off, of the console): each
 * control or format character escaped, newline and CR too (`\n`), so a value someone else chose
 * can never end the line and start one of its own (a trailer, a `Then:`, a command).
 */
export function printableLine(text: string): string {
  return redactKnown(text).replace(UNSAFE_IN_LINE, escapeChar);
}

/**
 * Several lines of someone else's prose (a model's words), each as its own printable line behind
 * `prefix`: none of them can pass for a line of splintercat's own (`Then:`, a command).
 */
export function prefixedLines(text: string, prefix: string): string[] {
  return text
    .split(/\r?\n|\r/)
    .filter((line) => line.trim() !== '')
    .map((line) => `${prefix}${printableLine(line)}`);
}

/**
 * One word of a command a person runs in a POSIX shell (sh, bash, zsh), which the shell reads back
 * exactly: plain words as they are, others single-quoted; a name with a control character (which
 * would print raw) becomes `"$(printf '%b' '...')"`, its characters as printf escapes.
 */
export function shellWord(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  if (isPrintableName(word)) return `'${word.replace(/'/g, `'\\''`)}'`;
  const escaped = word
    .replace(/\\/g, '\\\\')
    // printf's \0NNN: one byte each, so a character beyond Latin-1 is written as its UTF-8 bytes.
    .replace(UNSAFE_IN_NAME, (ch) =>
      [...Buffer.from(ch, 'utf8')].map((b) => `\\0${b.toString(8).padStart(3, '0')}`).join(''),
    )
    .replace(/'/g, `'\\''`);
  return `"$(printf '%b' '${escaped}')"`;
}

/** Text for a terminal as a whole: escape sequences dropped but colours, other control characters escaped (`\r` kept). */
export function terminalText(text: string): string {
  return clean(redactKnown(text));
}

/** An escape sequence: CSI (`ESC [ ... final`), OSC/DCS/APC/PM/SOS (to BEL or ST), or a two-character one. */
const ESCAPE_SEQUENCE =
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\u0007\u001b]*(?:\u0007|\u001b\\)|[ -/]*(?![[\]PX^_])[0-~])|\u009b[0-?]*[ -/]*[@-~]/g;
/** The same, whole at the start of a text (no state shared with the global one). */
const ESCAPE_SEQUENCE_AT_START = new RegExp(`^(?:${ESCAPE_SEQUENCE.source})`);
/** Colours and styles (SGR): the one kind of sequence a check's output may keep. */
const SGR = /^(?:\u001b\[|\u009b)[0-9;:]*m$/;

/**
 * A check's output on its way to the terminal, chunk by chunk: escape sequences dropped but colours
 * (a split one held until the next chunk), other control characters escaped; tab, newline and
 * carriage return (progress lines) kept.
 */
export class TerminalFilter {
  private held = '';

  push(chunk: string): string {
    let text = this.held + chunk;
    this.held = '';
    // An escape sequence cut by the chunk's end waits for the rest (bounded: a lone ESC is not held forever).
    const lastEsc = Math.max(text.lastIndexOf('\u001b'), text.lastIndexOf('\u009b'));
    if (lastEsc >= 0 && text.length - lastEsc < 256) {
      const tail = text.slice(lastEsc);
      if (!ESCAPE_SEQUENCE_AT_START.test(tail)) {
        this.held = tail;
        text = text.slice(0, lastEsc);
      }
    }
    return clean(text);
  }

  /** What was held back, cleaned. */
  end(): string {
    const rest = this.held;
    this.held = '';
    return clean(rest);
  }
}

/** Text with its escape sequences dropped but colours, then other control characters escaped (carriage return kept). */
function clean(text: string): string {
  let out = '';
  let at = 0;
  const escape = (part: string): string => part.replace(UNSAFE_IN_TEXT, (ch) => (ch === '\r' ? ch : escapeChar(ch)));
  for (const m of text.matchAll(ESCAPE_SEQUENCE)) {
    out += escape(text.slice(at, m.index)) + (SGR.test(m[0]) ? m[0] : '');
    at = (m.index ?? 0) + m[0].length;
  }
  return out + escape(text.slice(at));
}
