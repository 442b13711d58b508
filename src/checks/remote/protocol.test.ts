import { describe, expect, it } from 'vitest';
import { SplintercatError } from '../../errors/index.js';
import {
  PROTOCOL_VERSION,
  checkRequestId,
  checkRequestKey,
  newNonce,
  parseRequestMessage,
  parseResultRecord,
  requestMessage,
  resultProblem,
  signedRecord,
  type CheckRequest,
  type CheckResultRecord,
} from './protocol.js';
import { resultKey, resultSignature } from './result-key.js';
import { knownSecrets } from '../../util/secret-registry.js';

const commit = 'a'.repeat(40);
const tree = 'b'.repeat(40);

function request(nonce = newNonce()): CheckRequest {
  const key = checkRequestKey('quick', 'make', tree, 60);
  return {
    splintercat: 'check-request',
    version: PROTOCOL_VERSION,
    id: checkRequestId(key, nonce),
    nonce,
    run: 'up',
    check: 'quick',
    command: 'make',
    setup: '',
    setupNetwork: false,
    setupWhen: [],
    untrusted: [],
    timeoutSec: 60,
    killGraceSec: 10,
    commit,
    requestedAt: '2026-01-01T00:00:00.000Z',
    by: 'here',
  };
}

function answer(to: CheckRequest, patch: Partial<CheckResultRecord> = {}): CheckResultRecord {
  return {
    splintercat: 'check-result',
    version: PROTOCOL_VERSION,
    id: to.id,
    nonce: to.nonce,
    run: to.run,
    check: to.check,
    commit: to.commit,
    success: true,
    exitCode: 0,
    signal: null,
    timedOut: false,
    durationMs: 1,
    tests: null,
    url: null,
    runner: 'ci',
    finishedAt: '2026-01-01T00:00:01.000Z',
    ...patch,
  };
}

describe('the check protocol: a result answers only the request it carries the nonce of', () => {
  it('each request has a fresh 128-bit nonce and an id no one can compute ahead of it', () => {
    const a = request();
    const b = request();
    expect(a.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.id).not.toBe(b.id);
    // The id starts with the readable check key and tells nothing of the nonce.
    expect(a.id.startsWith(checkRequestKey('quick', 'make', tree, 60))).toBe(true);
    expect(a.id).not.toContain(a.nonce.slice(0, 8));
    expect(parseRequestMessage(requestMessage(a))).toEqual(a);
  });

  it("a result with another nonce, id, check or commit is not the request's", () => {
    const asked = request();
    expect(resultProblem(asked, answer(asked))).toBeNull();
    expect(resultProblem(asked, answer(asked, { nonce: '0'.repeat(32) }))).toMatch(/nonce/);
    expect(resultProblem(asked, answer(asked, { nonce: asked.nonce.slice(2) }))).toMatch(/nonce/);
    expect(resultProblem(asked, answer(asked, { id: 'other' }))).toMatch(/request other/);
    expect(resultProblem(asked, answer(asked, { check: 'slow' }))).toMatch(/'slow'/);
    expect(resultProblem(asked, answer(asked, { commit: 'c'.repeat(40) }))).toMatch(/commit c{40}/);
  });

  it('a request or result of another protocol version is said to be one, not taken', () => {
    const old = { ...request(), version: 1 };
    let error: unknown;
    try {
      parseRequestMessage(`splintercat check request: quick\n\n${JSON.stringify(old)}\n`);
    } catch (e) {
      error = e;
    }
    expect(SplintercatError.isInstance(error) && error.code).toBe('check_protocol_mismatch');
    expect((error as Error).message).toMatch(/protocol version 1; this splintercat speaks version 2/);
    const parsed = parseResultRecord(JSON.stringify({ ...answer(request()), version: 1 }));
    expect(parsed).toMatchObject({ ok: false, reason: expect.stringMatching(/protocol version 1/) });
    // A result without a nonce (as version 1 wrote them) is no answer either.
    const { nonce: _nonce, ...bare } = answer(request());
    expect(parseResultRecord(JSON.stringify(bare)).ok).toBe(false);
  });
});

describe('results signed with the result key', () => {
  const key = 'k'.repeat(64);

  it('a signed result answers; unsigned, signed with another key or changed after signing, it does not', () => {
    const to = request();
    const signed = signedRecord(answer(to), key);
    expect(signed.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(resultProblem(to, signed, key)).toBeNull();
    // Without a key of its own the clone reads the nonce alone, as before.
    expect(resultProblem(to, answer(to))).toBeNull();
    expect(resultProblem(to, answer(to), key)).toBe('it is not signed with SPLINTERCAT_RESULT_KEY');
    const other = signedRecord(answer(to), 'o'.repeat(64));
    expect(resultProblem(to, other, key)).toBe("its signature is not of this clone's SPLINTERCAT_RESULT_KEY");
    const flipped = { ...signed, success: false };
    expect(resultProblem(to, flipped, key)).toBe("its signature is not of this clone's SPLINTERCAT_RESULT_KEY");
    // A signature of the right length but wrong, and one of another length, compare without throwing.
    expect(resultProblem(to, { ...signed, signature: '0'.repeat(64) }, key)).not.toBeNull();
    expect(resultProblem(to, { ...signed, signature: 'ab' }, key)).not.toBeNull();
    // The wrong nonce is named first, whatever the signature.
    expect(resultProblem(to, signedRecord(answer(to, { nonce: newNonce() }), key), key)).toBe(
      "its nonce is not this clone's request's",
    );
  });

  it('signed, a result must name the request commit this clone pushed: a request rewritten on the remote is another', () => {
    const to = request();
    const pushed = 'c'.repeat(40);
    expect(resultProblem(to, signedRecord(answer(to, { requestCommit: pushed }), key), key, pushed)).toBeNull();
    expect(resultProblem(to, signedRecord(answer(to, { requestCommit: 'd'.repeat(40) }), key), key, pushed)).toBe(
      `it answers the request commit ${'d'.repeat(40)}, not ${pushed}, which this clone pushed`,
    );
    expect(resultProblem(to, signedRecord(answer(to), key), key, pushed)).toBe(
      `it answers the request commit (none named), not ${pushed}, which this clone pushed`,
    );
    // Without a key, a result of an older job that names none is taken on its nonce, as before.
    expect(resultProblem(to, answer(to), null, pushed)).toBeNull();
  });

  it('signs what a reader of result.json reads: key order and defaults do not change the signature', () => {
    const to = request();
    const signed = signedRecord(answer(to, { tests: { runner: 'vitest', failures: [], ran: 3, stopped: null } }), key);
    const text = JSON.stringify(Object.fromEntries(Object.entries(signed).reverse()));
    const read = parseResultRecord(text);
    expect(read.ok && resultProblem(to, read.record, key)).toBeNull();
    // The signature is of the record without it.
    const { signature, ...rest } = signed;
    expect(resultSignature(rest, key)).toBe(signature);
    expect(parseResultRecord(JSON.stringify({ ...signed, signature: 'not hex' })).ok).toBe(false);
  });

  it('the key read from the environment is a secret from then on; a short or empty one is no key', () => {
    expect(resultKey({})).toBeNull();
    expect(resultKey({ SPLINTERCAT_RESULT_KEY: 'short' })).toBeNull();
    const value = 'f'.repeat(40) + 'cafe';
    expect(resultKey({ SPLINTERCAT_RESULT_KEY: ` ${value}\n` })).toBe(value);
    expect(knownSecrets()).toContain(value);
  });
});
