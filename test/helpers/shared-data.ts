import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `../shared` beside the repository: test data that CI provides and a fresh clone does not have. */
const sharedRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../shared');

export interface SharedData {
  /** Absolute path of the data (it may not exist). */
  dir: string;
  /** True when the suite should be skipped: the data is missing and `CI` is not set. */
  skip: boolean;
}

/**
 * Test data under `../shared` (`corpus`, `real-histories`), found by `marker`, a file inside it.
 * On a fresh clone it is missing: the suites that need it are skipped, with a note on stderr
 * saying what is missing and why. Under CI (`CI` set) it must be there: nothing is skipped, and
 * the suite's own check of `dir` fails loudly.
 */
export function sharedData(name: string, marker: string, purpose: string): SharedData {
  const dir = resolve(sharedRoot, name);
  const present = existsSync(resolve(dir, marker));
  const skip = !present && !process.env.CI;
  if (skip)
    process.stderr.write(
      `note: skipping ${purpose}: ${resolve(dir, marker)} is missing (test data that CI provides beside the checkout, at ../shared/${name})\n`,
    );
  return { dir, skip };
}

/** The message a suite asserts with when the data must be present (under CI). */
export function missingSharedMessage(data: SharedData, marker: string): string {
  return `${resolve(data.dir, marker)} is missing: CI must provide the test data at ../shared beside the checkout (see .ci/run)`;
}
