import { isUtf8 } from 'node:buffer';

/**
 * How a file's bytes are held as a string while the ladder works on it. `utf8` when every
 * version of the file is valid UTF-8; otherwise `latin1`, which maps each byte to one
 * character and back, so a Latin-1, Shift-JIS or otherwise non-UTF-8 file keeps every byte
 * (conflict markers and line endings are ASCII in all of them). A file is the unit: its
 * versions are decoded alike, and written back with the same encoding.
 */
export type TextEncoding = 'utf8' | 'latin1';

/** `utf8` when every given version (null: absent) is valid UTF-8, else `latin1`. */
export function encodingOf(...versions: ReadonlyArray<Uint8Array | null | undefined>): TextEncoding {
  return versions.every((v) => v === null || v === undefined || isUtf8(v)) ? 'utf8' : 'latin1';
}

export function decodeBytes(bytes: Uint8Array, encoding: TextEncoding): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(encoding);
}

export function encodeText(text: string, encoding: TextEncoding): Buffer {
  return Buffer.from(text, encoding);
}
