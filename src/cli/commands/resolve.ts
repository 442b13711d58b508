import type { Command } from 'commander';
import type { Git } from '../../git/index.js';
import type { WorkingTreeFileResult } from '../../resolve/index.js';
import { handoffFile } from '../../workflow/handoff.js';
import { globalOptions, printJson, printResult } from '../context.js';
import { ExitCode } from '../exit-codes.js';

/** `splintercat resolve [FILE...]`: the ladder over a conflicted working tree. */
export function registerResolve(program: Command): Command {
  return program
    .command('resolve')
    .description('run the resolution ladder on conflicted files of the working tree')
    .argument('[files...]', 'unmerged paths (default: every unmerged path)')
    .option('--json', 'machine-readable result on stdout')
    .option('--no-cache', 'do not read or write the resolution cache')
    .option('--no-model', 'do not ask the LLM resolver even when llm.resolver_model is set')
    .action(async (files: string[], opts: { json?: boolean; cache: boolean; model: boolean }, cmd: Command) => {
      const { loadCliConfig } = await import('../run-context.js');
      const { Git } = await import('../../git/index.js');
      const { ladderFromConfig, resolveWorkingTree, shellRegenerateRunner } = await import('../../resolve/index.js');
      const global = globalOptions(cmd);
      const { config, warnings } = await loadCliConfig(global);
      const git = new Git({ cwd: global.cwd });
      try {
        const top = await git.topLevel();
        const gitTop = git.at(top);
        try {
          const setup = await ladderFromConfig(config.resolve, gitTop, { noCache: !opts.cache });
          for (const w of [...warnings, ...setup.warnings]) process.stderr.write(`warning: ${w}\n`);
          const paths = await toTopLevelPaths(git, files);
          // Rung 3: the LLM resolver, whenever llm.resolver_model is configured (null = offline).
          const rung = opts.model
            ? (await import('../../agents/index.js')).createModelRungFromConfig(config, process.env, {
                git: gitTop,
                workdir: top,
              })
            : null;
          const results = await resolveWorkingTree(gitTop, {
            paths,
            top,
            rules: setup.rules,
            cache: setup.cache,
            fallback: rung?.fallback,
            syntax: setup.syntax,
            regenerate: setup.regenerate,
            runCommand: shellRegenerateRunner(),
          });
          if (rung) {
            const usage = rung.usage();
            process.stderr.write(
              `model: ${usage.hunksResolved} hunk(s) resolved, ${usage.inputTokens}+${usage.outputTokens} tokens, $${usage.costUsd.toFixed(4)}\n`,
            );
          }
          const left = results.filter((r) => r.status !== 'resolved');
          if (opts.json) printJson({ resolved: left.length === 0, files: results });
          else printResult(formatResults(results));
          if (left.length > 0) process.exitCode = ExitCode.NeedsHuman;
        } finally {
          gitTop.close();
        }
      } finally {
        git.close();
      }
    });
}

/** Paths given relative to the current directory, as paths from the top level. */
async function toTopLevelPaths(git: Git, files: string[]): Promise<string[]> {
  if (files.length === 0) return [];
  const prefix = await git.text(['rev-parse', '--show-prefix']);
  return files.map((f) => (prefix === '' ? f : `${prefix}${f}`).replace(/\/+$/, ''));
}

function formatResults(results: WorkingTreeFileResult[]): string {
  if (results.length === 0) return 'No unmerged paths.';
  const lines: string[] = [];
  for (const r of results) {
    const by = r.resolutions.map((x) => `hunk ${x.hunkIndex} by ${x.rung === 'rule' ? x.by : `${x.rung} (${x.by})`}`);
    if (r.decision && r.decision.kind !== 'content' && r.decision.kind !== 'add/add') {
      lines.push(
        r.status === 'resolved'
          ? `${r.path}: resolved (${r.decision.kind}: ${r.decision.description}; ${r.decision.resolution?.action})`
          : `${r.path}: needs a decision (${r.decision.kind}): ${r.decision.description}; options: ${r.decision.options.map((o) => o.action).join(', ')}`,
      );
      continue;
    }
    if (r.generated && r.status !== 'resolved') lines.push(handoffFile(r).instructions);
    else if (r.status === 'resolved') lines.push(`${r.path}: resolved and staged (${by.join(', ') || 'file-level'})`);
    else {
      const left = r.remaining.map((h) => `lines ${h.startLine}-${h.endLine}`).join(', ');
      lines.push(
        `${r.path}: ${r.remaining.length} hunk(s) left (${left})${by.length > 0 ? `; resolved ${by.join(', ')}` : ''}${r.note ? `; ${r.note}` : ''}`,
      );
    }
  }
  const left = results.filter((r) => r.status !== 'resolved').length;
  lines.push(
    left === 0
      ? 'All conflicts resolved.'
      : `${left} file(s) need a human: edit them, then \`git add\` them (or run \`splintercat continue\`).`,
  );
  return lines.join('\n');
}
