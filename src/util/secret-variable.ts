/** Variable names that hold credentials by convention (`OPENAI_API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`). */
const SECRET_NAME = /(_KEY|_TOKEN|_SECRET|_PASSWORD)$/i;
/** splintercat's own variables, which may carry the model's key (`SPLINTERCAT_LLM__API_KEY`). */
const OWN_PREFIX = /^SPLINTERCAT_/i;

/** Whether a variable is named like a credential. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** Whether a child process must not inherit this variable: a credential's name, or splintercat's own. */
export function isSecretVariable(name: string): boolean {
  return SECRET_NAME.test(name) || OWN_PREFIX.test(name);
}
