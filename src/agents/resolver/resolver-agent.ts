import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { generateText, stepCountIs, type ModelMessage, type StopCondition, type ToolSet } from 'ai';
import type { CheckResult, CheckRunnerLike, FailureSummary } from '../../checks/types.js';
import type { Git } from '../../git/index.js';
import { changesSince, takeSnapshot } from '../../git/worktree-snapshot.js';
import { replaceFileWithin } from '../../util/replace-file.js';
import type { ConflictCell } from '../../imerge/types.js';
import { nullLogger, type Logger } from '../../log/logger.js';
import { parseConflictText } from '../../resolve/parse/markers.js';
import { ModelError } from '../model-error.js';
import type { ModelGateway } from '../model-gateway.js';
import { checkTools, formatCheckForModel, putBackOutside } from './check-tools.js';
import { commitDiffs } from './commit-diffs.js';
import { conflictTools } from './conflict-tools.js';
import { resolverSystemPrompt, resolverUserPrompt, type PromptFile } from './prompt.js';
import { repoTools } from './repo-tools.js';
import { Sandbox } from './tool-sandbox.js';
import { searchTools } from './search-tools.js';
import { limitConcurrency, type ToolContext } from './tool-context.js';

/** One tool call as the model made it, with what the tool answered. */
export interface ToolCallRecord {
  turn: number;
  tool: string;
  input: unknown;
  /** The tool's answer, or the error the model saw (unknown tool, invalid arguments). */
  output: string;
}

interface ResolverTranscript {
  /** The model's text and reasoning, turn by turn. */
  reasoning: string[];
  toolCalls: ToolCallRecord[];
  turns: number;
  /** Recovery steps taken (fresh conversation after a timeout, ...). */
  recoveries: string[];
}

export type ResolverFailure =
  /** No model for the resolver role. */
  | 'offline'
  /** The turn limit passed without every file submitted. */
  | 'turn_limit'
  /** The model never answered (longer timeout, then a fresh conversation): the person takes over. */
  | 'needs_person'
  | 'budget'
  | 'model_failed';

export type ResolverOutcome =
  | ({ ok: true; files: Record<string, string>; modelId: string } & ResolverTranscript)
  | ({ ok: false; reason: ResolverFailure; message: string; modelId: string | null } & ResolverTranscript);

export interface ResolveWithModelInput {
  /** A worktree (or working tree) holding the conflicted files. */
  workdir: string;
  /** The conflicted files of this conflict (relative to workdir); the only files that may be written. */
  files: string[];
  details?: ConflictCell | null;
  failure?: FailureSummary | string | null;
  /** Key for usage accounting (e.g. `3-7`). */
  conflictId?: string;
  mergeSummary?: string | null;
  allConflicts?: string | null;
  upstreamRef?: string;
  forkBranch?: string;
  /** The fork's own instructions (`resolve.instructions`): part of the standing instructions, not data. */
  instructions?: string;
  /** What the fork's past merges suggest, by hunk number (of the first file): shown as data beside the hunk. */
  hints?: Record<number, string>;
}

export interface ResolverDeps {
  gateway: ModelGateway;
  /** Any Git of the repository; it is re-targeted at the workdir. */
  git: Git;
  runCheck?: CheckRunnerLike | null;
  formatCheck?: (result: CheckResult, data?: (label: string, text: string) => string) => string;
  log?: Logger;
  /** Model turns (tool-calling steps) per conflict; default 10. */
  maxTurns?: number;
  markerSize?: number;
  abortSignal?: AbortSignal;
}

/** Stops the loop once every conflicted file has been submitted and accepted (refines hasToolCall('submit_resolution')). */
function allAccepted<T extends ToolSet>(ctx: ToolContext): StopCondition<T> {
  return ({ steps }) => {
    const last = steps[steps.length - 1];
    return (
      last !== undefined &&
      last.toolCalls.some((c) => c.toolName === 'submit_resolution') &&
      ctx.sandbox.writableFiles().every((f) => ctx.accepted.has(f))
    );
  };
}

/** What each conflicted file held before the model (by path relative to the workdir), and its hunks for the prompt. */
interface ConflictFiles {
  originals: Map<string, string>;
  promptFiles: PromptFile[];
}

/** Read the conflict's files through the sandbox; a string says which could not be read. */
async function readConflictFiles(
  sandbox: Sandbox,
  workdir: string,
  markerSize: number,
): Promise<ConflictFiles | string> {
  const originals = new Map<string, string>();
  const promptFiles: PromptFile[] = [];
  for (const f of sandbox.writableFiles()) {
    const p = await sandbox.forWrite(f);
    if (!p.ok) return p.error;
    const text = await readFile(p.abs, 'utf8').catch(() => null);
    if (text === null) return `${f} cannot be read in ${workdir}`;
    originals.set(p.rel, text);
    promptFiles.push({ path: f, hunks: parseConflictText(text, { path: f, markerSize }).hunks });
  }
  return { originals, promptFiles };
}

type StepResult = Parameters<NonNullable<Parameters<typeof generateText<ToolSet>>[0]['onStepFinish']>>[0];

/** Count each step as a turn and keep what the model said and each tool call, in the transcript and the log. */
function stepRecorder(transcript: ResolverTranscript, log: Logger): (step: StepResult) => void {
  return (step) => {
    transcript.turns += 1;
    const said = [step.reasoningText, step.text]
      .filter((t): t is string => typeof t === 'string' && t.trim() !== '')
      .join('\n');
    if (said) {
      transcript.reasoning.push(said);
      log.info({ turn: transcript.turns }, `resolver: ${said.slice(0, 500)}`);
    }
    for (const part of step.content) {
      if (part.type !== 'tool-result' && part.type !== 'tool-error') continue;
      const output =
        part.type === 'tool-result'
          ? String(part.output)
          : `Error: ${part.error instanceof Error ? part.error.message : String(part.error)}`;
      transcript.toolCalls.push({ turn: transcript.turns, tool: part.toolName, input: part.input, output });
      log.debug(
        { turn: transcript.turns, tool: part.toolName, input: part.input, output: output.slice(0, 2000) },
        'resolver tool call',
      );
    }
  };
}

/** One resolver conversation: what it sends, what it keeps, and how it ends. */
interface Conversation {
  model: NonNullable<ReturnType<ModelGateway['model']>>;
  system: string;
  tools: ToolSet;
  ctx: ToolContext;
  first: string;
  transcript: ResolverTranscript;
  log: Logger;
  maxTurns: number;
  abortSignal: AbortSignal | undefined;
  restore: () => Promise<void>;
  fail: (reason: ResolverFailure, message: string) => Promise<ResolverOutcome>;
}

/**
 * What a failed model call leads to: `fresh` to start over once after a timeout, else the outcome.
 * An auth error puts everything back and is thrown: the run must stop.
 */
async function afterCallError(
  conv: Conversation,
  error: unknown,
  freshStarted: boolean,
): Promise<'fresh' | ResolverOutcome> {
  if (!ModelError.isModelError(error)) {
    const message = error instanceof Error ? error.message : String(error);
    return conv.fail('model_failed', `the resolver conversation failed: ${message}`);
  }
  if (error.reason === 'auth') {
    await conv.restore();
    throw error;
  }
  if (error.reason === 'timeout' && !freshStarted) {
    conv.transcript.recoveries.push('fresh-conversation');
    conv.log.decision(
      { turns: conv.transcript.turns },
      'resolver: no reply after a longer timeout; starting a fresh conversation with the current state',
    );
    return 'fresh';
  }
  if (error.reason === 'timeout') {
    conv.transcript.recoveries.push('needs-person');
    return conv.fail('needs_person', `the resolver model did not answer, even in a fresh conversation: ${error.what}`);
  }
  return conv.fail(error.reason === 'budget' ? 'budget' : 'model_failed', error.what);
}

/** Once every file was accepted: the resolution, unless a check run beside the last submission changed other files. */
async function acceptedOutcome(conv: Conversation): Promise<ResolverOutcome> {
  const { ctx, transcript } = conv;
  if ((await changesSince(ctx.git, ctx.outside)).length > 0)
    return conv.fail('model_failed', 'files outside the conflict changed after the submission; everything is put back');
  const files = Object.fromEntries(ctx.accepted);
  conv.log.decision(
    { files: Object.keys(files), turns: transcript.turns, toolCalls: transcript.toolCalls.length },
    'resolver resolved the conflict',
  );
  return { ok: true, files, modelId: conv.model.modelId, ...transcript };
}

/** Talk with the model until every file is accepted, the turns run out, or a call fails. */
async function converse(conv: Conversation): Promise<ResolverOutcome> {
  const { ctx, transcript, maxTurns } = conv;
  let messages: ModelMessage[] = [{ role: 'user', content: conv.first }];
  let freshStarted = false;
  while (transcript.turns < maxTurns) {
    let stoppedWithoutTools = false;
    try {
      const result = await generateText({
        model: conv.model.model,
        system: conv.system,
        messages,
        tools: conv.tools,
        stopWhen: [stepCountIs(maxTurns - transcript.turns), allAccepted(ctx)],
        // Retries live in the resilience wrapper (backoff, Retry-After, timeouts).
        maxRetries: 0,
        ...(conv.abortSignal ? { abortSignal: conv.abortSignal } : {}),
        onStepFinish: stepRecorder(transcript, conv.log),
      });
      const last = result.steps[result.steps.length - 1];
      stoppedWithoutTools = last !== undefined && last.toolCalls.length === 0;
      messages = [...messages, ...result.response.messages];
    } catch (error) {
      const next = await afterCallError(conv, error, freshStarted);
      if (next !== 'fresh') return next;
      freshStarted = true;
      messages = [{ role: 'user', content: `${conv.first}\n\n${await restoredState(ctx, transcript)}` }];
      continue;
    }
    if (ctx.sandbox.writableFiles().every((f) => ctx.accepted.has(f))) return acceptedOutcome(conv);
    if (!stoppedWithoutTools) break;
    // The model answered in prose only: ask again for tool use, since only a tool call changes the files.
    messages.push({
      role: 'user',
      content: 'Use the tools to resolve the conflict and call submit_resolution for every conflicted file.',
    });
  }
  const pending = ctx.sandbox.writableFiles().filter((f) => !ctx.accepted.has(f));
  return conv.fail(
    'turn_limit',
    `no accepted resolution within ${maxTurns} turns (not submitted: ${pending.join(', ')})`,
  );
}

/** The first user message: the conflict's hunks, the commits' diffs, the failure being fixed, hints. */
async function firstPrompt(input: ResolveWithModelInput, ctx: ToolContext, files: PromptFile[]): Promise<string> {
  const commits = { ours: input.details?.commit1.oid, theirs: input.details?.commit2.oid };
  return resolverUserPrompt({
    files,
    details: ctx.details,
    diffs: await commitDiffs(ctx.git, commits, input.files),
    failure: input.failure ?? null,
    ...(input.upstreamRef ? { upstreamRef: input.upstreamRef } : {}),
    ...(input.forkBranch ? { forkBranch: input.forkBranch } : {}),
    ...(input.hints ? { hints: input.hints } : {}),
    nonce: ctx.nonce,
  });
}

/**
 * Resolve one conflict (one or more files in `workdir`) with the resolver model
 * and its tools. The model is untrusted: tools are confined by a Sandbox, and a
 * file counts as resolved only once submit_resolution validated it. On any
 * failure the files are put back as they were, so no work is lost.
 * Throws only `ModelError('auth')` (the run must stop); everything else is a value.
 */
export async function resolveWithModel(input: ResolveWithModelInput, deps: ResolverDeps): Promise<ResolverOutcome> {
  const log = (deps.log ?? nullLogger).child({
    agent: 'resolver',
    ...(input.conflictId ? { conflict: input.conflictId } : {}),
  });
  const transcript: ResolverTranscript = { reasoning: [], toolCalls: [], turns: 0, recoveries: [] };
  const guarded = deps.gateway.model('resolver', input.conflictId);
  if (!guarded) {
    const message = 'no resolver model configured (llm.resolver_model)';
    return { ok: false, reason: 'offline', message, modelId: null, ...transcript };
  }
  const markerSize = deps.markerSize ?? 7;
  const git = deps.git.at(input.workdir);
  const refuse = (message: string): ResolverOutcome => ({
    ...{ ok: false, reason: 'model_failed', message },
    ...{ modelId: guarded.modelId, ...transcript },
  });
  const sandbox = await Sandbox.create(input.workdir, input.files, (rel) => isTracked(git, rel)).catch(() => null);
  if (!sandbox) return refuse(`the working directory ${input.workdir} is not accessible`);
  if (sandbox.writableFiles().length === 0) return refuse(`no usable conflicted file among: ${input.files.join(', ')}`);
  const read = await readConflictFiles(sandbox, input.workdir, markerSize);
  if (typeof read === 'string') return refuse(read);
  const nonce = randomBytes(6).toString('hex');
  const ctx: ToolContext = {
    sandbox,
    git,
    nonce,
    runCheck: deps.runCheck ?? null,
    formatCheck: deps.formatCheck ?? formatCheckForModel,
    details: input.details ?? null,
    mergeSummary: input.mergeSummary ?? null,
    allConflicts: input.allConflicts ?? null,
    markerSize,
    accepted: new Map(),
    outside: await takeSnapshot(git, sandbox.writableFiles()),
    log,
  };
  const first = await firstPrompt(input, ctx, read.promptFiles);
  log.debug({ prompt: first }, 'resolver initial prompt');
  // Everything as it was: the work tree outside the conflict's files, then those files (never through a link a check made).
  const restore = async (): Promise<void> => {
    await putBackOutside(ctx);
    for (const [rel, text] of read.originals) replaceFileWithin(sandbox.root, rel, text);
  };
  const fail = async (reason: ResolverFailure, message: string): Promise<ResolverOutcome> => {
    await restore();
    const counts = { reason, turns: transcript.turns, toolCalls: transcript.toolCalls.length };
    log.decision(counts, `resolver gave up: ${message}`);
    return { ok: false, reason, message, modelId: guarded.modelId, ...transcript };
  };
  return converse({
    model: guarded,
    system: resolverSystemPrompt(nonce, ctx.runCheck?.names() ?? [], input.instructions),
    tools: limitConcurrency({ ...conflictTools(ctx), ...repoTools(ctx), ...searchTools(ctx), ...checkTools(ctx) }),
    ...{ ctx, first, transcript, log, maxTurns: deps.maxTurns ?? 10, abortSignal: deps.abortSignal },
    ...{ restore, fail },
  });
}

/** Whether git tracks `rel` (in the index, at any stage). */
async function isTracked(git: Git, rel: string): Promise<boolean> {
  const out = await git.run(['ls-files', '-z', '--cached', '--full-name', '--', `:(literal)${rel}`], {
    okExitCodes: [0, 128],
  });
  return out.exitCode === 0 && out.stdout.split('\0').includes(rel);
}

/** What a fresh conversation needs to pick up where a silent one stopped. */
async function restoredState(ctx: ToolContext, transcript: ResolverTranscript): Promise<string> {
  const lines = ['A previous conversation about this conflict stopped (the model did not answer). State so far:'];
  for (const c of transcript.toolCalls.slice(-10))
    lines.push(
      `- turn ${c.turn}: ${c.tool}(${JSON.stringify(c.input).slice(0, 200)}) -> ${c.output.split('\n')[0]?.slice(0, 200) ?? ''}`,
    );
  for (const f of ctx.sandbox.writableFiles()) {
    const p = await ctx.sandbox.forRead(f);
    const text = p.ok ? await readFile(p.abs, 'utf8').catch(() => '') : '';
    const left = parseConflictText(text, { markerSize: ctx.markerSize }).hunks.length;
    lines.push(`- ${f}: ${left} conflict(s) left${ctx.accepted.has(f) ? ', already accepted' : ''}`);
  }
  lines.push('Continue from this state; the files on disk hold the changes made so far.');
  return lines.join('\n');
}
