import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as esbuild from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
let script: string | undefined;

/**
 * The page's script (client/main.ts and its modules, typed TypeScript for the browser) as one
 * inline IIFE: the bundle `npm run build` writes next to this module (`dist/report/html/client.js`),
 * or, when splintercat runs from its sources (tsx, tests), bundled from them on first use.
 */
export function clientScript(): string {
  if (script === undefined) {
    const built = join(here, 'client.js');
    script = existsSync(built) ? readFileSync(built, 'utf8') : bundleClient(join(here, 'client', 'main.ts'));
  }
  return script;
}

/**
 * Bundle the page's script with esbuild (a development dependency: only the build and source runs need it).
 * @public `scripts/bundle-client.mjs` calls it from the built `dist/` at build time.
 */
export function bundleClient(entry: string): string {
  const bundler = createRequire(import.meta.url)('esbuild') as typeof esbuild;
  const result = bundler.buildSync({
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    target: 'es2017',
    charset: 'utf8',
    legalComments: 'none',
    write: false,
  });
  return (result.outputFiles[0] as { text: string }).text;
}
