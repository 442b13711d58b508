import { describe, expect, it } from 'vitest';
import { scrubEnv } from './check-env.js';

describe('scrubEnv', () => {
  const env = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    OPENROUTER_API_KEY: 'sk-or-v1-0123456789abcdef',
    GITHUB_TOKEN: 'ghp_0123456789abcdef',
    aws_secret: 'lowercase-secret-value',
    DB_PASSWORD: 'pw-0123456789',
    FEATURE_KEY: '1',
    SPLINTERCAT_LLM__API_KEY: 'sk-configured-0123456789',
    SPLINTERCAT_CHECK__TIMEOUT: '60',
    SOMETHING: 'sk-configured-0123456789',
    AUTH_HEADER: 'Bearer sk-configured-0123456789',
    NPM_TOKEN: 'npm_0123456789abcdef',
    KEYBOARD: 'us',
  };

  it('removes secret-named, splintercat and secret-holding variables; passthrough names are kept', () => {
    const out = scrubEnv(env, { secrets: ['sk-configured-0123456789'], passthrough: ['NPM_TOKEN'] });
    expect(out.env).toEqual({ PATH: '/usr/bin', HOME: '/home/u', KEYBOARD: 'us', NPM_TOKEN: 'npm_0123456789abcdef' });
    expect(out.removed).toEqual([
      'AUTH_HEADER',
      'DB_PASSWORD',
      'FEATURE_KEY',
      'GITHUB_TOKEN',
      'OPENROUTER_API_KEY',
      'SOMETHING',
      'SPLINTERCAT_CHECK__TIMEOUT',
      'SPLINTERCAT_LLM__API_KEY',
      'aws_secret',
    ]);
    // Values to redact: the given secret and the long values of secret-named variables, not flags or settings.
    // A variable holding the provider variable's key (the resolved key when llm.api_key is empty) goes too.
    const copied = scrubEnv(
      { OPENROUTER_API_KEY: 'sk-or-v1-0123456789abcdef', COPY: 'sk-or-v1-0123456789abcdef', PATH: '/bin' },
      { secrets: [], passthrough: [] },
    );
    expect(copied.env).toEqual({ PATH: '/bin' });
    expect(out.secrets.sort()).toEqual(
      [
        'ghp_0123456789abcdef',
        'lowercase-secret-value',
        'pw-0123456789',
        'sk-configured-0123456789',
        'sk-or-v1-0123456789abcdef',
      ].sort(),
    );
  });
});
