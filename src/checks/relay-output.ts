import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { StreamRedactor } from '../log/redact.js';

/**
 * Relay one output stream: secrets redacted (also when split across chunks), the bytes for
 * the log, the text (UTF-8, characters split across chunks joined) for the console and tail.
 * Returns the flush to call once the stream has ended.
 */
export function relay(
  stream: Readable,
  secrets: readonly string[],
  emit: (bytes: Buffer, text: string) => void,
): () => void {
  const redactor = new StreamRedactor(secrets);
  const decoder = new StringDecoder('utf8');
  const send = (bytes: Buffer): void => {
    if (bytes.length > 0) emit(bytes, decoder.write(bytes));
  };
  stream.on('data', (chunk: Buffer) => send(redactor.push(chunk)));
  return () => {
    send(redactor.end());
    const rest = decoder.end();
    if (rest !== '') emit(Buffer.alloc(0), rest);
  };
}

export function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms).unref());
}

/** Resolves once a stream has delivered all its data (or failed). */
export function ended(stream: Readable): Promise<void> {
  if (stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((done) => {
    stream.once('end', done);
    stream.once('close', done);
    stream.once('error', () => done());
  });
}
