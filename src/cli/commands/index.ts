import type { Command } from 'commander';

/** One file of this folder: the commands it defines and how to load its `register<Name>`. */
interface CommandModule {
  names: readonly string[];
  load: () => Promise<(program: Command) => unknown>;
}

/**
 * Every command, each in its own file here (`<name>.ts`, exporting `register<Name>(program)`),
 * in the order `--help` lists them. A file is imported only when its command is registered.
 */
const commandModules: readonly CommandModule[] = [
  { names: ['init'], load: async () => (await import('./init.js')).registerInit },
  { names: ['merge'], load: async () => (await import('./merge.js')).registerMerge },
  { names: ['continue'], load: async () => (await import('./continue.js')).registerContinue },
  { names: ['share', 'join'], load: async () => (await import('./share.js')).registerShare },
  { names: ['status'], load: async () => (await import('./status.js')).registerStatus },
  { names: ['abort'], load: async () => (await import('./abort.js')).registerAbort },
  { names: ['log'], load: async () => (await import('./log.js')).registerLog },
  { names: ['doctor'], load: async () => (await import('./doctor.js')).registerDoctor },
  { names: ['report'], load: async () => (await import('./report.js')).registerReport },
  { names: ['ui'], load: async () => (await import('./ui.js')).registerUi },
  { names: ['check'], load: async () => (await import('./check.js')).registerCheck },
  { names: ['check-report'], load: async () => (await import('./check-report.js')).registerCheckReport },
  { names: ['cache'], load: async () => (await import('./cache.js')).registerCache },
  { names: ['resolve'], load: async () => (await import('./resolve.js')).registerResolve },
  { names: ['take'], load: async () => (await import('./take.js')).registerTake },
  { names: ['driver'], load: async () => (await import('./driver.js')).registerDriver },
  {
    names: ['eval'],
    load: async () => {
      const { registerEval } = await import('./eval.js');
      return (program) =>
        registerEval(program, {
          modelFallback: async (config, git) =>
            (await import('../../agents/index.js')).requireModelRungFromConfig(config, process.env, { git }),
        });
    },
  },
  { names: ['imerge'], load: async () => (await import('./imerge.js')).registerImerge },
  { names: ['demo'], load: async () => (await import('./demo.js')).registerDemo },
];

/**
 * Register the commands on `program`: only the file defining `only` when one does (start-up loads
 * what the command uses), else every command (help, an unknown command and its suggestion).
 */
export async function registerCommands(program: Command, only?: string): Promise<void> {
  const wanted = commandModules.filter((m) => only !== undefined && m.names.includes(only));
  const registers = await Promise.all((wanted.length > 0 ? wanted : commandModules).map((m) => m.load()));
  for (const register of registers) register(program);
}
