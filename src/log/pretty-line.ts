import { prettyFactory } from 'pino-pretty';

interface PrettyLineOptions {
  colorize: boolean;
  /** Show each entry's details (its object), on the same line as its message. */
  details: boolean;
  /** `HH:MM:ss` (the console of one command) or the date too (a log file spans days). */
  time: 'time' | 'date-time';
}

/**
 * How one JSON entry of splintercat's log reads to a person: `[time] LEVEL: message`, with the
 * decision level named. The console and `splintercat log` print entries alike; a line that is
 * not JSON (a torn last line) is printed as it is.
 */
export function prettyLine(options: PrettyLineOptions): (line: string) => string {
  return prettyFactory({
    colorize: options.colorize,
    ignore: 'pid,hostname',
    translateTime: options.time === 'time' ? 'SYS:HH:MM:ss' : 'SYS:yyyy-mm-dd HH:MM:ss',
    customLevels: 'debug:20,info:30,decision:35,warn:40,error:50,fatal:60',
    customColors: 'debug:blue,info:green,decision:cyan,warn:yellow,error:red,fatal:red',
    useOnlyCustomProps: true,
    hideObject: !options.details,
    ...(options.time === 'date-time' ? { singleLine: true } : {}),
  });
}
