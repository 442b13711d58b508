/** A resolution's text with every run of whitespace as one space: two that differ only so are the same answer. */
function normalizedText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Whether every text is the same resolution (whitespace ignored); fewer than two texts never agree. */
export function candidatesAgree(texts: readonly string[]): boolean {
  if (texts.length < 2) return false;
  const first = normalizedText(texts[0] as string);
  return texts.every((t) => normalizedText(t) === first);
}
