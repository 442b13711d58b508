import type { Git } from '../git/index.js';

/**
 * The person working in this clone, as git names them in commits: `user.name <user.email>`; null when git has
 * neither. The record says who settled what a person settled, as a merge commit's author line would.
 */
export async function personIdentity(git: Git): Promise<string | null> {
  const get = async (key: string): Promise<string> =>
    (await git.run(['config', '--get', key], { okExitCodes: [0, 1] })).stdout.trim();
  const [name, email] = await Promise.all([get('user.name'), get('user.email')]);
  if (!name && !email) return null;
  return email ? `${name || '?'} <${email}>` : name;
}
