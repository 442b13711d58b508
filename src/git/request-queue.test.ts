import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import { RequestQueue, type ReadAnswer } from './request-queue.js';

/** One answer per line of stdout. */
const lines: ReadAnswer<string> = (unread) => {
  const newline = unread.stdout.indexOf(10);
  if (newline < 0) return undefined;
  const line = unread.stdout.subarray(0, newline).toString('utf8');
  unread.stdout = unread.stdout.subarray(newline + 1);
  return line;
};

/** A queue whose k-th child runs `sh -c scripts[k]` (the last script from then on); the children it started. */
function shellQueue(scripts: string[], read: ReadAnswer<string> = lines) {
  const children: ChildProcessWithoutNullStreams[] = [];
  const queue = new RequestQueue<string>({
    start: () => {
      const script = scripts[Math.min(children.length, scripts.length - 1)] as string;
      const child = spawn('sh', ['-c', script]);
      children.push(child);
      return child;
    },
    read,
    exitError: (code, stderr) => new Error(`child exited with ${code}: ${stderr.trim()}`),
  });
  onTestFinished(() => queue.close(new Error('test over')));
  return { queue, children };
}

describe('RequestQueue', () => {
  it('answers requests in the order they were written, however the output is cut into chunks', async () => {
    const { queue, children } = shellQueue(['exec cat']);
    // Larger than a pipe's buffer, so both the request and its answer cross several chunks.
    const big = 'x'.repeat(300_000);
    const asked = ['one', big, ...Array.from({ length: 200 }, (_, k) => `line ${k}`)];
    const answers = await Promise.all(asked.map((line) => queue.request(`${line}\n`)));
    expect(answers).toEqual(asked);
    expect(queue.pending).toBe(0);
    expect(children).toHaveLength(1);
  });

  it('rejects every waiting request when the child dies, then starts a new child for the next', async () => {
    // Answers the first request and part of the second, then exits with a message while two wait.
    const { queue, children } = shellQueue(['read l; echo "$l"; printf part; echo dying >&2; exit 3', 'exec cat']);
    const [first, second, third] = ['a', 'b', 'c'].map((line) => queue.request(`${line}\n`));
    await expect(first).resolves.toBe('a');
    await expect(second).rejects.toThrow('child exited with 3: dying');
    await expect(third).rejects.toThrow('child exited with 3: dying');
    expect(queue.pending).toBe(0);
    // The part the dead child printed is not the start of the new child's answer.
    expect(await queue.request('d\n')).toBe('d');
    expect(children).toHaveLength(2);
  });

  it('rejects waiting requests when the child is killed from outside', async () => {
    const { queue, children } = shellQueue(['exec cat >/dev/null']);
    const waiting = [queue.request('a\n'), queue.request('b\n')];
    children[0]?.kill('SIGKILL');
    for (const request of waiting) await expect(request).rejects.toThrow('child exited with undefined');
  });

  it('rejects waiting requests when the child cannot start', async () => {
    const queue = new RequestQueue<string>({
      start: () => spawn('/nonexistent/splintercat-no-such-binary', []),
      read: lines,
      exitError: () => new Error('not this one'),
    });
    await expect(queue.request('a\n')).rejects.toThrow(/ENOENT/);
    expect(queue.pending).toBe(0);
  });

  it('rejects everything waiting when the output cannot be read, and reads the next child afresh', async () => {
    const strict: ReadAnswer<string> = (unread) => {
      const line = lines(unread);
      if (line === 'garbage') throw new Error('unreadable answer');
      return line;
    };
    const { queue, children } = shellQueue(['read l; echo garbage; exec cat >/dev/null', 'exec cat'], strict);
    const waiting = [queue.request('a\n'), queue.request('b\n')];
    for (const request of waiting) await expect(request).rejects.toThrow('unreadable answer');
    expect(await queue.request('c\n')).toBe('c');
    expect(children).toHaveLength(2);
  });

  it('close rejects what waits; what the closed child prints afterwards reaches no later request', async () => {
    // The first child prints "late" once it is stopped; the second answers only after its second request.
    const { queue, children } = shellQueue([
      'trap "echo late; exit 0" TERM; echo ready >&2; cat >/dev/null',
      'read a; read b; echo "$a"; echo "$b"',
    ]);
    const waiting = queue.request('a\n');
    const first = children[0] as ChildProcessWithoutNullStreams;
    await once(first.stderr, 'data');
    const printed: string[] = [];
    first.stdout.on('data', (chunk: Buffer) => printed.push(chunk.toString('utf8')));
    queue.close(new Error('closed by the test'));
    await expect(waiting).rejects.toThrow('closed by the test');

    const second = queue.request('b\n');
    await once(first, 'close');
    expect(printed.join('')).toBe('late\n');
    const third = queue.request('c\n');
    expect(await Promise.all([second, third])).toEqual(['b', 'c']);
    expect(children).toHaveLength(2);
  });
});
