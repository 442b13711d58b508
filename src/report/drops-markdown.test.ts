import { describe, expect, it } from 'vitest';
import { dropsMarkdown } from './drops-markdown.js';
import { mdCode, mdText } from './markdown.js';
import { renderDrops } from './html/drops-html.js';
import type { DropsView } from './model.js';

const drops: DropsView = {
  source: 'final',
  fork: [
    {
      path: 'lib/router.js',
      cell: '1-1',
      decidedBy: 'rule keep-both-additions',
      reason: null,
      words: 'drops 3 lines the fork added',
      lost: 3,
      lines: [{ kind: 'dropped', line: 3, text: '  audit(req); `x` <img src=x>' }],
    },
  ],
  upstream: [
    {
      path: 'a<b>.js',
      cell: '2-1',
      decidedBy: 'a person (ours)',
      reason: "a person's take ours",
      words: 'drops 1 line upstream added',
      lost: 1,
      lines: [],
    },
  ],
  unreasoned: 1,
  notAudited: 2,
};

describe('What the merge dropped', () => {
  it('lists each side with who decided, flags a drop with no recorded reason, and escapes upstream text', () => {
    const md = dropsMarkdown(drops, { text: mdText, code: mdCode }).join('\n');
    expect(md).toContain('### What the merge dropped');
    expect(md).toMatch(
      /\*\*The fork\*\* \(1 file\(s\)\):\n\n- `lib\/router\.js`: drops 3 lines the fork added \[cell 1-1, rule keep-both-additions\] — \*\*no recorded reason\*\*/,
    );
    expect(md).toContain('  - dropped 3: ``  audit(req); `x` <img src=x>``');
    expect(md).toMatch(
      /\*\*Upstream\*\*[\s\S]*`a<b>\.js`: drops 1 line upstream added \[cell 2-1, a person \(ours\)\] \(a person's take ours\)/,
    );
    expect(md).toContain('2 file(s) not audited');
    const html = renderDrops(drops);
    expect(html).toContain('<b>no recorded reason</b>');
    expect(html).toContain('&lt;img src=x&gt;');
    expect(html).not.toContain('<img');
  });

  it('says nothing was dropped in one line', () => {
    const none = dropsMarkdown(
      { ...drops, fork: [], upstream: [], unreasoned: 0, notAudited: 0 },
      { text: mdText, code: mdCode },
    );
    expect(none.join('\n')).toMatch(/Nothing: the merge keeps every line/);
  });
});
