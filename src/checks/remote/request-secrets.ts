import { UsageError } from '../../errors/index.js';
import { knownSecrets } from '../../util/secret-registry.js';
import { isSecretName } from '../../util/secret-variable.js';
import type { CheckRequest } from './protocol.js';

/** Shorter values of secret-named variables are flags (`FOO_TOKEN=1`), not credentials. */
const MIN_SECRET_LENGTH = 8;

/**
 * `request` as it may cross the remote: a request is a commit message on a shared ref, readable
 * by every clone and runner, so it never holds a secret. A secret a `${NAME}` template put into
 * the command or the setup goes back to that template: the job's shell expands it from the job's
 * own environment (the CI's variable, given to the check with `check-report --env-passthrough`),
 * as this machine's configuration expanded it from this one's. A secret no variable of `env`
 * holds (a key in a `.env` file, a URL's password) cannot be named so: the request is refused.
 */
export function requestWithoutSecrets(request: CheckRequest, env: NodeJS.ProcessEnv): CheckRequest {
  const named = Object.entries(env).filter(
    (entry): entry is [string, string] =>
      isSecretName(entry[0]) && typeof entry[1] === 'string' && entry[1].length >= MIN_SECRET_LENGTH,
  );
  const secrets = [...new Set([...knownSecrets(), ...named.map(([, value]) => value)])].sort(
    (a, b) => b.length - a.length,
  );
  const carry = (field: 'command' | 'setup'): string => {
    let text = request[field];
    for (const secret of secrets) {
      if (!text.includes(secret)) continue;
      const name = named.find(([, value]) => value === secret)?.[0];
      if (name === undefined) throw secretInRequest(request.check, field);
      text = text.split(secret).join(`\${${name}}`);
    }
    return text;
  };
  return { ...request, command: carry('command'), setup: carry('setup') };
}

function secretInRequest(check: string, field: 'command' | 'setup'): UsageError {
  const key = field === 'command' ? `check.commands.${check}` : 'check.setup';
  return new UsageError('check_request_secret', {
    what: `Refused to send the check '${check}' to CI: ${key} holds a secret value`,
    why: 'A check request is a commit on the shared remote, readable by every clone and runner, and no environment variable holds this value, so it cannot be sent as a ${NAME} reference the job expands',
    fix: [
      `Put the secret in an environment variable named like one (NAME_TOKEN, NAME_KEY, ...) and write \${NAME} in ${key}`,
      'Give the CI job that variable and pass it to the check with `check-report --env-passthrough NAME`',
    ],
  });
}
