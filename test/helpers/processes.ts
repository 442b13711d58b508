import { readdirSync, readFileSync } from 'node:fs';

/** Host pids of live (non-zombie) processes whose environment holds `name=value`. */
export function processesWithEnv(name: string, value: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return (
          stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z' &&
          readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${name}=${value}`)
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}
