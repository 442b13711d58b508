import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/git-repo.js';

const ROOT = join(import.meta.dirname, '../..');

/**
 * A word that was a synonym of a glossary word (docs/architecture.md). `except` lists the files
 * that must still spell it: readers of stored values and of old configuration keys, and the
 * places splintercat speaks git's or git-imerge's own words.
 */
interface Synonym {
  word: RegExp;
  glossary: string;
  except: string[];
}

const SYNONYMS: Synonym[] = [
  // the person
  {
    word: /[Hh]uman/,
    glossary: 'person',
    except: ['src/config/old-keys.ts', 'src/store/old-spellings.ts', 'src/store/rung.ts'],
  },
  // the model API's role and npm's user-level config file say `user`; a stored decider was `user`
  {
    word: /'user'/,
    glossary: 'person',
    except: ['src/agents/resolver/resolver-agent.ts', 'src/checks/untrusted-tool-env.ts', 'src/store/old-spellings.ts'],
  },
  // git-imerge's manual merges and refs (`manual/I1-I2`) keep their word; the resolver mode is `person`
  {
    word: /merge\.resolver.*\bmanual\b|\bmanual (edit|resolver)\b/,
    glossary: 'person',
    except: ['src/config/old-keys.ts'],
  },

  // the hunk
  {
    // "block" unless it names another kind: CSS's, YAML's, a language's, a fenced or data block, a quoted node type
    word: /(?<!display:|inline-|YAML |code |describe |Python |braced |require |fenced |data |new |numbered |indented |conflicts |` )\b[Bb]locks?\b(?! mappings?\b| kinds\b)(?!(?<=[`'][Bb]locks?)[`'])/,
    glossary: 'hunk',
    // git-imerge's blocks of the grid; the DOM's scrollIntoView option
    except: [
      'src/imerge/autofill.ts',
      'src/imerge/diagram.ts',
      'src/imerge/frontier.ts',
      'src/imerge/grid.ts',
      'src/imerge/incremental-merge.ts',
      'src/report/html/client/dom.ts',
    ],
  },
  // names built on the word: HandoffBlock, blockKey, ...
  {
    word: /[a-z]Blocks?(?:\b|[A-Z])|\b[Bb]locks?[A-Z]/,
    glossary: 'hunk',
    except: ['src/imerge/autofill.ts', 'src/imerge/frontier.ts', 'src/imerge/grid.ts'],
  },

  // the sides
  {
    word: /\bbranch [12]\b/,
    glossary: 'fork, upstream',
    except: ['src/imerge/finish-goals.ts', 'src/imerge/grid.ts', 'src/imerge/types.ts'],
  },
  {
    // git-imerge's names of the two tips: the engine, its adapter and its own command, and the
    // readers and writers of what the engine stores (its state blob, grid-history.json).
    word: /\btip[12]\b/i,
    glossary: 'forkTip, upstreamTip',
    except: [
      'src/cli/commands/imerge.ts',
      'src/imerge/boundaries.ts',
      'src/imerge/conflict-estimate.ts',
      'src/imerge/diagram.ts',
      'src/imerge/finish-goals.ts',
      'src/imerge/grid-ancestry.ts',
      'src/imerge/incremental-merge.ts',
      'src/imerge/start-merge.ts',
      'src/imerge/state.ts',
      'src/report/grid-history-cache.ts',
      'src/store/doctor-rebuild.ts',
      'src/store/doctor-refs.ts',
      'src/workflow/imerge-adapter.ts',
    ],
  },
  {
    // A cell's coordinates are i and j; `i1` and `i2` are only their stored keys (`cell.i1`,
    // `{ i1: i }`), git-imerge's own names, and the fields the planner's model reads.
    word: /(?<![.\w$`])i[12](?![\w$])(?!\??:)/,
    glossary: 'i, j (a cell), fork, upstream (a side)',
    except: [
      'src/agents/planner.ts',
      'src/imerge/autofill.ts',
      'src/imerge/cell.ts',
      'src/imerge/diagram.ts',
      'src/imerge/finish-goals.ts',
      'src/imerge/frontier.ts',
      'src/imerge/grid-ancestry.ts',
      'src/imerge/grid.ts',
      'src/imerge/housekeeping.ts',
      'src/imerge/incremental-merge.ts',
      'src/imerge/present-conflict.ts',
      'src/imerge/start-merge.ts',
      'src/imerge/state.ts',
      'src/imerge/types.ts',
    ],
  },

  {
    // The run state's sides were stored as `target` (the fork) and `source` (upstream); only the
    // reader of earlier spellings names them (a check's `target`, a grid's `source` are other words).
    word: /\b(?:state|s|run|initial|next|started|joined\.state)\??\.(?:target|source)\b|\bsnapshot\.(?:target|source)\b|RunState\['(?:target|source)'\]|\bshape\.(?:target|source)\b/,
    glossary: 'fork, upstream',
    except: ['src/store/old-spellings.ts'],
  },

  // the stop at which the person is given the open conflicts
  { word: /\b[Hh]and-?overs?\b/, glossary: 'hand-off', except: [] },

  // configuration keys renamed: only the reader of old spellings names them
  { word: /\bstrategies_available\b/, glossary: 'available_strategies', except: ['src/config/old-keys.ts'] },
  { word: /\bcheck\.output_dir\b/, glossary: 'log.dir', except: ['src/config/old-keys.ts'] },
];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return files(path);
    return /\.tsx?$/.test(entry.name) && !/\.(test|d)\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** `file:line: text` for each line of `src/` under `root` that spells a synonym outside its exceptions. */
function synonymsUsed(root: string, synonyms: Synonym[]): string[] {
  return files(join(root, 'src')).flatMap((file) => {
    const name = relative(root, file);
    const lines = readFileSync(file, 'utf8').split('\n');
    return synonyms.flatMap((synonym) =>
      synonym.except.includes(name)
        ? []
        : lines.flatMap((line, i) =>
            synonym.word.test(line) ? [`${name}:${i + 1}: ${line.trim()} (say "${synonym.glossary}")`] : [],
          ),
    );
  });
}

describe("src/ spells each concept the glossary's way", () => {
  it('uses no synonym the glossary replaced', () => {
    expect(synonymsUsed(ROOT, SYNONYMS)).toEqual([]);
  });

  it('finds a planted synonym and passes it in a file named as an exception', () => {
    const root = tempDir();
    const src = join(root, 'src');
    const planted: Synonym = { word: /\bcolour\b/, glossary: 'color', except: ['src/old.ts'] };
    mkdirSync(src);
    writeFileSync(join(src, 'new.ts'), 'const a = 1;\n// the colour of it\n');
    writeFileSync(join(src, 'old.ts'), '// the colour as stored\n');
    writeFileSync(join(src, 'new.test.ts'), '// a colour in a test\n');
    expect(synonymsUsed(root, [planted])).toEqual(['src/new.ts:2: // the colour of it (say "color")']);
  });
});
