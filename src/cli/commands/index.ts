import type { Command } from 'commander';
import { registerDriver } from './driver.js';
import { requireModelRungFromConfig } from '../../agents/index.js';
import { registerCache } from './cache.js';
import { registerCheck } from './check.js';
import { registerDemo } from './demo.js';
import { registerDoctor } from './doctor.js';
import { registerEval } from './eval.js';
import { registerImerge } from './imerge.js';
import { registerInit } from './init.js';
import { registerMerge } from './merge.js';
import { registerReport } from './report.js';
import { registerResolve } from './resolve.js';
import { registerStatus } from './status.js';
import { registerUi } from './ui.js';

/** Every command of design.md §9, each in its own file here (`<name>.ts`, exporting `register<Name>(program)`). */
export function registerCommands(program: Command): void {
  registerInit(program);
  registerMerge(program);
  registerStatus(program);
  registerDoctor(program);
  registerReport(program);
  registerUi(program);
  registerCheck(program);
  registerCache(program);
  registerResolve(program);
  registerDriver(program);
  registerEval(program, { modelFallback: (config, git) => requireModelRungFromConfig(config, process.env, { git }) });
  registerImerge(program);
  registerDemo(program);
}
