import { InvalidArgumentError, type Command } from 'commander';
import { configRequest, globalOptions, printResult } from '../context.js';

interface LogOptions {
  name?: string;
  lines: number;
  path?: boolean;
  follow?: boolean;
  json?: boolean;
}

function lineCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('a whole number of lines, 0 or more');
  return n;
}

/** `splintercat log [NAME]`: the run's log (the file every error message names), its end, or followed as it grows. */
export function registerLog(program: Command): void {
  program
    .command('log')
    .description("print the run's log (splintercat.log in log.dir): its last lines, or follow it")
    .argument('[name]', 'the merge (default: the only one, else imerge.name, as status picks it)')
    .option('--name <name>', 'the merge, as NAME')
    .option('-n, --lines <n>', 'how many of the last entries to print', lineCount, 50)
    .option('--path', 'print only the path of the log file')
    .option('-f, --follow', 'keep printing entries as they are written, until interrupted (Ctrl-C)')
    .option('--json', 'the entries as they are in the file (JSON lines), not as readable text')
    .action(async (name: string | undefined, opts: LogOptions, cmd: Command) => {
      const [{ configFor }, { runLogPath }] = await Promise.all([
        import('../../workflow/config-for.js'),
        import('../../workflow/run-log.js'),
      ]);
      const run = await configFor.run({
        ...configRequest(globalOptions(cmd)),
        name: name ?? opts.name,
        runRequired: true,
        configRequired: false,
      });
      run.git.close();
      const path = runLogPath(run);
      if (opts.path) return printResult(path);
      const [{ lastLines, followFile }, { prettyLine }] = await Promise.all([
        import('../../log/follow-file.js'),
        import('../../log/pretty-line.js'),
      ]);
      const show = opts.json
        ? (line: string) => `${line}\n`
        : prettyLine({ colorize: Boolean(process.stdout.isTTY), details: true, time: 'date-time' });
      const print = (lines: string[]): void => {
        if (lines.length > 0) printResult(lines.map(show).join(''));
      };
      const tail = lastLines(path, opts.lines);
      print(tail.lines);
      if (!opts.follow) return;
      const stop = new AbortController();
      process.once('SIGINT', () => stop.abort());
      process.once('SIGTERM', () => stop.abort());
      await followFile(path, print, { from: tail.end, signal: stop.signal });
    });
}
