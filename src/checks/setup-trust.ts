import picomatch from 'picomatch';

/**
 * Which model-written files a setup would run (named in its command: `sh setup.sh`) and which it
 * reads (matching `setup_when`: `npm ci` runs package.json's scripts).
 */
export function setupTrust(
  command: string,
  patterns: readonly string[],
  untrusted: readonly string[],
): { runs: string[]; reads: string[] } {
  const matches = patterns.length > 0 ? picomatch([...patterns], { dot: true }) : () => false;
  const named = (file: string): boolean =>
    new RegExp(`(^|[\\s'"=/;&|(])(\\./)?${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[\\s'";&|)])`).test(command);
  return { runs: untrusted.filter(named), reads: untrusted.filter((f) => matches(f)) };
}
