import { describe, expect, it } from 'vitest';
import { candidatesAgree } from './candidates.js';
import type { ReviewVerdict } from './reviewer.js';
import { secondOpinion, type Candidate } from './second-opinion.js';

const a: Candidate = { text: 'x = 1\n', modelId: 'm' };
const aSpaced: Candidate = { text: 'x  =   1\n\n', modelId: 'm' };
const b: Candidate = { text: 'x = 2\n', modelId: 'm' };
const reject: ReviewVerdict = { accepted: false, modelId: 'r', why: 'rejected: wrong', lines: [{ line: 1, why: 'x' }] };

describe('secondOpinion', () => {
  it('whitespace alone is no disagreement; text is', () => {
    expect(candidatesAgree([a.text, aSpaced.text])).toBe(true);
    expect(candidatesAgree([a.text, b.text])).toBe(false);
    expect(candidatesAgree([a.text])).toBe(false);
  });

  it('candidates that agree are the model resolution with no reviewer, and still need a configured one', async () => {
    expect(await secondOpinion(2, [a, aSpaced], null)).toEqual({ accepted: true, text: a.text, modelId: 'm' });
    let asked = 0;
    const review = async (): Promise<ReviewVerdict> => (asked++, reject);
    expect(await secondOpinion(2, [a, aSpaced], review)).toMatchObject({ accepted: false, why: 'rejected: wrong' });
    expect(asked).toBe(1);
    const accept: ReviewVerdict = { accepted: true, modelId: 'r', summary: 'ok' };
    expect(await secondOpinion(2, [a, aSpaced], async () => accept)).toMatchObject({ accepted: true });
  });

  it('disagreeing candidates, or fewer than asked, go to the person with every candidate', async () => {
    expect(await secondOpinion(2, [a, b], null)).toMatchObject({
      accepted: false,
      why: 'the 2 candidates disagree',
      candidates: [a, b],
    });
    expect(await secondOpinion(3, [a, aSpaced], null)).toMatchObject({
      accepted: false,
      why: 'only 2 of the 3 candidates resolved the file',
    });
    expect(await secondOpinion(2, [], null)).toBeNull();
  });

  it('one candidate stands only when the reviewer accepts it', async () => {
    const accept: ReviewVerdict = { accepted: true, modelId: 'r', summary: 'ok' };
    expect(await secondOpinion(1, [a], async () => accept)).toMatchObject({ accepted: true, text: a.text });
    expect(await secondOpinion(1, [a], async () => reject)).toEqual({
      accepted: false,
      why: 'rejected: wrong',
      reviewer: 'r',
      lines: [{ line: 1, why: 'x' }],
      candidates: [a],
    });
    expect(await secondOpinion(1, [a], null)).toMatchObject({ accepted: true });
  });
});
