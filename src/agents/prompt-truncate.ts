import type { LanguageModelV3Prompt } from '@ai-sdk/provider';

/** Keep the head and the tail of a long text, with a visible note of what was cut. */
export function cutMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const half = Math.max(1, Math.floor(maxChars / 2));
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} characters cut to fit the model's context ...]\n${text.slice(-half)}`;
}

/**
 * A shorter copy of a prompt for one retry after "context too long": every long
 * text (system, user, tool output) keeps its head and tail, capped at half the
 * longest text or `maxChars`, whichever is smaller. Tool calls and their results
 * stay paired, so the conversation is still valid.
 */
export function truncatePrompt(prompt: LanguageModelV3Prompt, maxChars = 4000): LanguageModelV3Prompt {
  let longest = 0;
  const measure = (s: string): void => {
    longest = Math.max(longest, s.length);
  };
  for (const m of prompt) {
    if (typeof m.content === 'string') measure(m.content);
    else for (const p of m.content) visitPart(p, measure);
  }
  const cap = Math.max(200, Math.min(maxChars, Math.floor(longest / 2)));
  return prompt.map((m) => {
    if (typeof m.content === 'string') return { ...m, content: cutMiddle(m.content, cap) } as typeof m;
    return { ...m, content: m.content.map((p) => shrinkPart(p, cap)) } as typeof m;
  });
}

function visitPart(part: unknown, f: (s: string) => void): void {
  const p = part as { type: string; text?: string; output?: { type: string; value: unknown } };
  if ((p.type === 'text' || p.type === 'reasoning') && typeof p.text === 'string') f(p.text);
  if (p.type === 'tool-result' && p.output)
    f(typeof p.output.value === 'string' ? p.output.value : JSON.stringify(p.output.value ?? ''));
}

function shrinkPart<T>(part: T, cap: number): T {
  const p = part as { type: string; text?: string; output?: { type: string; value: unknown } };
  if ((p.type === 'text' || p.type === 'reasoning') && typeof p.text === 'string')
    return { ...part, text: cutMiddle(p.text, cap) };
  if (p.type === 'tool-result' && p.output) {
    const value = typeof p.output.value === 'string' ? p.output.value : JSON.stringify(p.output.value ?? '');
    if (value.length <= cap) return part;
    return { ...part, output: { type: 'text', value: cutMiddle(value, cap) } };
  }
  return part;
}
