import type { Command } from 'commander';
import { registerNotAvailable } from '../not-available.js';
import { registerDriver } from './driver.js';
import { requireModelRungFromConfig } from '../../agents/index.js';
import { registerCheck } from './check.js';
import { registerDemo } from './demo.js';
import { registerDoctor } from './doctor.js';
import { registerEval } from './eval.js';
import { registerImerge } from './imerge.js';
import { registerInit } from './init.js';
import { registerMerge } from './merge.js';
import { registerResolve } from './resolve.js';
import { registerStatus } from './status.js';

/**
 * Every command of design.md §9. A command that has landed lives in its own
 * file here (`<name>.ts`, exporting `register(program)`); the others answer
 * "not available yet" with exit code 2 until their issue lands.
 */
export function registerCommands(program: Command): void {
  registerInit(program);
  registerMerge(program);
  registerStatus(program);
  registerDoctor(program);
  registerNotAvailable(program, 'report', 'write the full account of a run as HTML or Markdown');
  registerNotAvailable(program, 'ui', 'serve a live, read-only web view of a merge on 127.0.0.1');
  registerCheck(program);
  registerResolve(program);
  registerDriver(program);
  registerEval(program, { modelFallback: (config, git) => requireModelRungFromConfig(config, process.env, { git }) });
  registerImerge(program);
  registerDemo(program);
}
