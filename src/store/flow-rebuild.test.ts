import { describe, expect, it } from 'vitest';
import { rebuildFlowData } from './flow-rebuild.js';
import { parseRunEvent } from './run-events.js';

describe('the flow data rebuilt from the journal', () => {
  it('gives back the files decided once for the merge, so a rebuilt run does not ask again', () => {
    const wholeFiles = { 'Gemfile.lock': { side: 'upstream' as const, conflict: '1-1' } };
    const event = parseRunEvent({
      seq: 1,
      ts: new Date(0).toISOString(),
      type: 'person_choices',
      choices: { fileChoices: {}, handoffChoices: {}, wholeFiles },
    });
    if (event === undefined) throw new Error('the person_choices event did not parse');
    const data = rebuildFlowData([event], { conflicts: [], checks: [], config: null }, []);
    expect(data.choices?.wholeFiles).toEqual(wholeFiles);
  });
});
