import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';

describe('splintercat check with secrets in the environment', () => {
  it('the configured key, the provider variable and SPLINTERCAT_* never reach stdout, stderr, --json or the log', async () => {
    const dir = tempDir();
    const configured = 'sk-or-v1-configured0123456789abcdef';
    const provider = 'sk-or-v1-provider0123456789abcdef';
    writeFileSync(
      join(dir, 'splintercat.yaml'),
      [
        'llm:',
        '  api_key: ${MY_LLM_KEY}',
        '  resolver_model: some/model',
        'check:',
        '  sandbox: auto',
        '  commands:',
        '    leak: env; echo "key=$MY_LLM_KEY"; echo "spelled=' + configured + '"; exit 1',
        '',
      ].join('\n'),
    );
    const env = { MY_LLM_KEY: configured, OPENROUTER_API_KEY: provider, SPLINTERCAT_LLM__BASE_URL: '' };
    const text = await runCli(['check', 'leak'], dir, env);
    const json = await runCli(['check', 'leak', '--json'], dir, env);
    expect(text.code).toBe(1);
    const logs = join(dir, '.splintercat', 'logs');
    const logText = readdirSync(logs)
      .filter((f) => f.startsWith('leak-'))
      .map((f) => readFileSync(join(logs, f), 'utf8'))
      .join('\n');
    for (const out of [text.stdout, text.stderr, json.stdout, json.stderr, logText]) {
      expect(out).not.toContain(configured);
      expect(out).not.toContain(provider);
      expect(out).not.toMatch(/^(MY_LLM_KEY|OPENROUTER_API_KEY|SPLINTERCAT_LLM__BASE_URL)=/m);
    }
    expect(logText).toContain('spelled=[REDACTED]');
    expect(logText).toContain('key=\n');
    expect(JSON.parse(json.stdout)).toMatchObject({
      name: 'leak',
      success: false,
      tail: expect.arrayContaining(['spelled=[REDACTED]']),
    });
  });
});
