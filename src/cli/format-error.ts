import { SplintercatError } from '../errors/index.js';

/**
 * Render an error for a person: what went wrong, why, how to fix it, where to look.
 * The stack is shown only with --verbose.
 */
export function formatError(error: unknown, verbose: boolean, logHint?: string): string {
  const lines: string[] = [];
  if (SplintercatError.isInstance(error)) {
    lines.push(`error: ${error.what}`);
    if (error.why) lines.push('', ...indent(error.why));
    if (error.fix.length > 0) {
      lines.push('', 'To fix:');
      error.fix.forEach((step, i) => lines.push(`  ${error.fix.length > 1 ? `${i + 1}. ` : ''}${step}`));
    }
    const where = error.where ?? logHint;
    if (where) lines.push('', `For more details, see: ${where}`);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    lines.push(`error: ${message}`);
    lines.push(
      '',
      'This is an unexpected internal error. Run again with --verbose to see the stack trace and report it.',
    );
    if (logHint) lines.push(`For more details, see: ${logHint}`);
  }
  if (verbose && error instanceof Error && error.stack) lines.push('', error.stack);
  return `${lines.join('\n')}\n`;
}

function indent(text: string): string[] {
  return text.split('\n').map((line) => `  ${line}`);
}
