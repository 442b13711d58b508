// After `tsc -p tsconfig.build.json`: bundle the report page's script into dist, where
// dist/report/html/client-script.js reads it (so an installed splintercat needs no bundler).
import { writeFileSync } from 'node:fs';
import { bundleClient } from '../dist/report/html/client-script.js';

writeFileSync(
  new URL('../dist/report/html/client.js', import.meta.url),
  bundleClient(new URL('../src/report/html/client/main.ts', import.meta.url).pathname),
);
