export interface TemplateContext {
  env: NodeJS.ProcessEnv;
  /** Absolute path substituted for `{target.workdir}` (and the legacy `{workdir}`). */
  workdir: string;
}

const ENV_PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const WORKDIR_PATTERN = /\{(?:target\.)?workdir\}/g;

/** Expand `${VAR}` and `{target.workdir}` in one string; returns the names of unset variables. */
function expandTemplate(value: string, context: TemplateContext, missing: Set<string>): string {
  return value
    .replace(ENV_PATTERN, (_, name: string) => {
      const found = context.env[name];
      if (found === undefined) missing.add(name);
      return found ?? '';
    })
    .replace(WORKDIR_PATTERN, context.workdir);
}

/**
 * Expand templates in every string of a configuration tree, in place, except
 * `check.commands` keys and other map keys. Returns the unset variables named.
 */
export function applyTemplates(tree: Record<string, unknown>, context: TemplateContext): string[] {
  const missing = new Set<string>();
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return expandTemplate(node, context, missing);
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) (node as Record<string, unknown>)[key] = walk(value);
    }
    return node;
  };
  walk(tree);
  return [...missing].sort();
}

const ANY_TEMPLATE = /(?<!\$)\{[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\}/g;

/**
 * `{name}` templates that are not `{target.workdir}` or `{workdir}`, with their dot-paths, in
 * every string of the tree except those under `skip` (shell code, where braces are syntax).
 * An unknown one would otherwise be taken literally, e.g. as a directory name.
 */
export function unknownTemplates(
  tree: Record<string, unknown>,
  skip: readonly string[],
): Array<{ path: string; name: string }> {
  const found: Array<{ path: string; name: string }> = [];
  const walk = (node: unknown, path: string[]): void => {
    const at = path.join('.');
    if (skip.some((s) => at === s || at.startsWith(`${s}.`))) return;
    if (typeof node === 'string') {
      for (const match of node.matchAll(ANY_TEMPLATE))
        if (!/^\{(?:target\.)?workdir\}$/.test(match[0])) found.push({ path: at, name: match[0] });
    } else if (Array.isArray(node)) node.forEach((v, i) => walk(v, [...path, String(i)]));
    else if (typeof node === 'object' && node !== null)
      for (const [key, value] of Object.entries(node)) walk(value, [...path, key]);
  };
  walk(tree, []);
  return found;
}
