import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { tempDir } from './git-repo.js';

/** Debian's chromium (`.ci/run` installs it when missing). */
const CHROMIUM = '/usr/bin/chromium';

const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where browser tests leave screenshots (ignored by git). */
export const testResults = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../test-results');

/** Headless chromium with a fresh user-data-dir (removed with the test's temp dir). */
export async function launchChromium(options: { width?: number; height?: number } = {}): Promise<BrowserContext> {
  mkdirSync(testResults, { recursive: true });
  return chromium.launchPersistentContext(join(tempDir('splintercat-chromium-'), 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: chromiumArgs,
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
  });
}
