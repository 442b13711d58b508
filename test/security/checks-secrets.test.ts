import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckRunner } from '../../src/checks/check-runner.js';
import { formatCheckResult } from '../../src/checks/format.js';
import { probeBwrap } from '../../src/checks/sandbox.js';
import type { SandboxMode } from '../../src/config/schema.js';
import type { Logger } from '../../src/log/logger.js';
import { tempDir } from '../helpers/git-repo.js';

const modes: SandboxMode[] = probeBwrap().ok ? ['off', 'bwrap'] : ['off'];

/** A logger that keeps every call, to search for secrets. */
function recordingLogger(): { logger: Logger; calls: unknown[] } {
  const calls: unknown[] = [];
  const record = (level: string) => (obj: object | string, msg?: string) => void calls.push([level, obj, msg]);
  const logger: Logger = {
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    decision: record('decision'),
    child: () => logger,
  };
  return { logger, calls };
}

describe.each(modes)('a hostile check cannot show a secret (sandbox %s)', (sandbox) => {
  const configured = 'sk-configured-key-0123456789abcdef';
  const provider = 'sk-or-v1-provider0123456789abcdef';
  const own = 'sk-own-prefixed-0123456789abcdef';
  const secrets = [configured, provider, own, 'db-password-0123456789', 'ghp_token0123456789abcdef'];

  it('env, files holding the key, a key split across writes: none reaches the tail, the log, the console or the logger', async () => {
    const dir = tempDir();
    // The key also sits in a file the check can read (a shell profile, a .env): output is redacted anyway.
    writeFileSync(join(dir, '.env'), `OPENROUTER_API_KEY=${provider}\n`);
    writeFileSync(
      join(dir, 'leak.mjs'),
      // Half a key, then (after a turn of the event loop, so the chunks differ) the other half.
      `const k = ${JSON.stringify(configured)};\nprocess.stdout.write('split:' + k.slice(0, 11));\nsetTimeout(() => process.stdout.write(k.slice(11) + ':end\\n'), 20);\n`,
    );
    const env = {
      PATH: process.env.PATH,
      HOME: dir,
      OPENROUTER_API_KEY: provider,
      SPLINTERCAT_LLM__API_KEY: own,
      DB_PASSWORD: 'db-password-0123456789',
      GITHUB_TOKEN: 'ghp_token0123456789abcdef',
      INNOCENT_LOOKING: configured,
      NPM_TOKEN: 'npm-passthrough-token-0123',
      VISIBLE: 'plain-value',
    };
    const { logger, calls } = recordingLogger();
    const runner = new CheckRunner({
      workdir: dir,
      outputDir: join(dir, 'logs'),
      commands: {
        leak: `env | sort; head -3 /etc/passwd; cat .env; echo "cfg=$INNOCENT_LOOKING"; echo "literal=${provider}"; node leak.mjs >&2; exit 1`,
      },
      timeoutSec: 30,
      killGraceSec: 1,
      sandbox,
      env,
      secrets: [configured],
      envPassthrough: ['NPM_TOKEN'],
      logger,
    });
    const console: string[] = [];
    const result = await runner.run('leak', { onOutput: (c) => console.push(c) });
    expect(result.success).toBe(false);

    const log = readFileSync(result.logFile, 'utf8');
    const seen = {
      tail: result.tail.join('\n'),
      log,
      console: console.join(''),
      formatted: formatCheckResult(result),
      json: JSON.stringify(result),
      logger: JSON.stringify(calls),
    };
    for (const [where, text] of Object.entries(seen)) {
      for (const secret of secrets) expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
    }
    // What the check saw: no secret-named variable, the passthrough and ordinary ones kept.
    const envOutput = log.slice(0, log.search(/^root:/m));
    expect(envOutput).not.toMatch(
      /^(OPENROUTER_API_KEY|SPLINTERCAT_LLM__API_KEY|DB_PASSWORD|GITHUB_TOKEN|INNOCENT_LOOKING)=/m,
    );
    expect(envOutput).toMatch(/^NPM_TOKEN=npm-passthrough-token-0123$/m);
    expect(envOutput).toMatch(/^VISIBLE=plain-value$/m);
    // Reading ordinary files is fine; the key read from a file or printed literally is redacted.
    expect(log).toMatch(/^root:/m);
    expect(log).toContain('OPENROUTER_API_KEY=[REDACTED]');
    expect(log).toContain('literal=[REDACTED]');
    expect(log).toContain('cfg=\n');
    expect(log).toContain('split:[REDACTED]:end');
    expect(seen.console).toContain('split:[REDACTED]:end');
  });
});
