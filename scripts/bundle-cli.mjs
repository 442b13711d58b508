// After `tsc -p tsconfig.build.json`: bundle the CLI (src/cli/main.ts and what it imports, the
// lazily imported commands as chunks beside it) over dist/cli/main.js, so start-up resolves and
// links a few files instead of hundreds. The other files of dist/ stay as tsc wrote them.
import { readdirSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const src = new URL('../src/', import.meta.url).pathname;
const dist = new URL('../dist/', import.meta.url).pathname;
const out = `${dist}cli/`;

// Kept as packages: they read files next to their own modules (WASM grammars, worker scripts),
// load optional peers by name, or are only loaded by the commands that call a model.
const external = [
  'web-tree-sitter',
  'tree-sitter-wasms',
  'esbuild',
  'pino',
  'pino-pretty',
  'ai',
  'ai/*',
  '@ai-sdk/*',
  '@openrouter/*',
  'playwright-core',
];

// Modules that find files relative to their own location (import.meta.url) stay where tsc put them;
// the chunks import them from there (every chunk is written beside main.js, in dist/cli/).
const inPlace = ['report/html/client-script'];

for (const file of readdirSync(out)) if (/^chunk-.*\.js$/.test(file) || file === 'main.js.map') rmSync(`${out}${file}`);

await build({
  entryPoints: [`${src}cli/main.ts`],
  outdir: out,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunk-[hash]',
  external,
  // Bundled CommonJS packages (yaml) call require(): give them Node's.
  banner: {
    js: "import { createRequire as __splintercatCreateRequire } from 'node:module'; const require = __splintercatCreateRequire(import.meta.url);",
  },
  legalComments: 'none',
  // Fewer bytes to parse at start-up (~8 ms of status); names are kept for --verbose stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  plugins: [
    {
      // zod's classic API re-exports every locale's messages (a third of its size) as `z.locales`;
      // splintercat never reads it and zod configures English itself, so only English is bundled.
      name: 'zod-english-only',
      setup(b) {
        b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
          contents: "export { default as en } from './en.js';",
          loader: 'js',
        }));
      },
    },
    {
      name: 'in-place',
      setup(b) {
        b.onResolve({ filter: /\.js$/ }, async (args) => {
          if (args.pluginData === 'in-place') return undefined;
          const resolved = await b.resolve(args.path, {
            kind: args.kind,
            resolveDir: args.resolveDir,
            pluginData: 'in-place',
          });
          const module = resolved.path.startsWith(src) ? resolved.path.slice(src.length).replace(/\.ts$/, '') : null;
          if (module === null || !inPlace.includes(module)) return undefined;
          return { path: `../${module}.js`, external: true };
        });
      },
    },
  ],
});
