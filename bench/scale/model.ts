/**
 * The scale drive's resolver model: scripted, in this process (`MockLanguageModelV3`), no network.
 * It reads the conflict's tag (`[cN]`) from the commit messages in the first prompt and the file
 * it is asked about, then does what the fixture planned for that conflict: writes the right file
 * and submits it, writes the fork side of its main file (a resolution that breaks the build or a
 * test; once the prompt carries the failure of an earlier attempt it writes the right one), or
 * gives the conflict up to a person.
 */
import { promptFiles } from '../_workflow-drive.js';
import type { LanguageModelV3GenerateResult, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import type { ScaleConflict } from './conflicts.js';

const usage: LanguageModelV3GenerateResult['usage'] = {
  inputTokens: { total: 900, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 120, text: undefined, reasoning: undefined },
};

function turn(content: LanguageModelV3GenerateResult['content'], tools: boolean): LanguageModelV3GenerateResult {
  return {
    content,
    finishReason: tools ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  };
}

function text(prompt: LanguageModelV3Prompt, role: 'user' | 'assistant' | 'tool'): string[] {
  return prompt
    .filter((m) => m.role === role)
    .map((m) =>
      Array.isArray(m.content)
        ? m.content.map((p) => ('text' in p ? p.text : JSON.stringify(p))).join('')
        : String(m.content),
    );
}

/** What the model was asked: the conflict (by tag), the file, and whether an earlier attempt failed a check. */
function asked(prompt: LanguageModelV3Prompt): { n: number; file: string; retry: boolean } | null {
  const first = text(prompt, 'user')[0] ?? '';
  const tag = /\[c(\d+)\]/.exec(first);
  const file = promptFiles(first)[0];
  if (!tag || !file) return null;
  return { n: Number(tag[1]), file, retry: first.includes('A previous resolution attempt failed') };
}

/** The scripted resolver for the fixture's conflicts; `calls` counts conversations per conflict. */
export function scriptedModel(conflicts: readonly ScaleConflict[]): {
  model: MockLanguageModelV3;
  calls: Map<number, number>;
} {
  const calls = new Map<number, number>();
  let ids = 0;
  const model = new MockLanguageModelV3({
    modelId: 'scripted',
    doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
      const task = asked(options.prompt);
      const conflict = task ? conflicts.find((c) => c.n === task.n) : undefined;
      const file = task ? conflict?.files[task.file] : undefined;
      if (!task || !conflict || !file) return turn([{ type: 'text', text: 'I do not know this conflict.' }], false);
      const done = text(options.prompt, 'assistant').length;
      if (done === 0) calls.set(task.n, (calls.get(task.n) ?? 0) + 1);
      if (conflict.model === 'give-up')
        return turn(
          [{ type: 'text', text: 'Both sides changed the same lines for different reasons; a person should decide.' }],
          false,
        );
      if (done >= 2) return turn([{ type: 'text', text: 'Submitted.' }], false);
      const wrong = conflict.model === 'wrong' && !task.retry && task.file === conflict.primary;
      const call = (tool: string, input: Record<string, unknown>): LanguageModelV3GenerateResult =>
        turn([{ type: 'tool-call', toolCallId: `c${++ids}`, toolName: tool, input: JSON.stringify(input) }], true);
      return done === 0
        ? call('write_file', { file: task.file, content: wrong ? file.fork : file.correct })
        : call('submit_resolution', { file: task.file });
    },
  });
  return { model, calls };
}
