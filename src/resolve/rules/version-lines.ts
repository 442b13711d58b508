import type { VersionScheme } from './version-order.js';
import { isVersion } from './version-order.js';

/** One pinned dependency on a line. */
export interface VersionedLine {
  /** The dependency (package, module, image, action; `rev` for a pre-commit hook, whose repository is the line above). */
  name: string;
  version: string;
  /** A commit or digest pinned beside the version (an action's SHA with its `# v1.2.3` comment), when there is one. */
  pin: string | null;
  /** The line with the version and the pin taken out: two sides that raised it alike have the same shape. */
  shape: string;
  scheme: VersionScheme;
}

interface Reader {
  /** Which files the reader applies to (by path). */
  applies: (path: string) => boolean;
  /** Named groups: `name`, `version` and, for a commit pinned beside its version, `pin`. */
  pattern: RegExp;
  scheme: VersionScheme | ((path: string) => VersionScheme);
}

const base = (path: string): string => path.slice(path.lastIndexOf('/') + 1);
/** Files that hold dependency pins: elsewhere `x >= 10` or `"port": "8080"` is a number, not a version. */
const packageJson = (path: string): boolean => base(path) === 'package.json';
const requirements = (path: string): boolean => /\.(txt|in)$/.test(path) && /requirements|constraints/i.test(path);
const toml = (path: string): boolean => ['Cargo.toml', 'pyproject.toml'].includes(base(path));
const yaml = (path: string): boolean => /\.ya?ml$/.test(path);
const dockerfile = (path: string): boolean => /^(Dockerfile|Containerfile)(\..*)?$|\.dockerfile$/i.test(base(path));
/** Poetry's table in pyproject.toml holds Python versions; other TOML (Cargo) holds semver-like ones. */
const tomlScheme = (path: string): VersionScheme => (base(path) === 'pyproject.toml' ? 'pep440' : 'tag');
const SHA = String.raw`[0-9a-f]{40}`;
const PEP508_NAME = String.raw`[A-Za-z0-9][A-Za-z0-9_.-]*(?:\[[^\]]*\])?`;

/** One reader per kind of line; the first whose pattern matches and whose version parses wins. */
const READERS: readonly Reader[] = [
  // package.json: "qs": "^6.9.4",
  { applies: packageJson, pattern: /^\s*"(?<name>[^"]+)"\s*:\s*"[~^]?(?<version>[^"\s]+)",?\s*$/, scheme: 'semver' },
  // requirements: babel==2.16.0, requests[socks]>=2.31 ; python_version >= "3.8"
  {
    applies: requirements,
    pattern: new RegExp(
      String.raw`^\s*(?<name>${PEP508_NAME})\s*(?:==|>=|~=)\s*(?<version>[^\s;#,]+)(?:\s*[;#].*)?\s*$`,
    ),
    scheme: 'pep440',
  },
  // pyproject.toml lists: "requests>=2.31.0",
  {
    applies: toml,
    pattern: new RegExp(
      String.raw`^\s*["'](?<name>${PEP508_NAME})\s*(?:==|>=|~=)\s*(?<version>[^\s;"',]+)[^"']*["'],?\s*$`,
    ),
    scheme: 'pep440',
  },
  // TOML (Cargo, Poetry): serde = "1.0.100", serde = { version = "1.0.100", features = ["derive"] }
  { applies: toml, pattern: /^\s*(?<name>[A-Za-z0-9_.-]+)\s*=\s*"[~^=]?(?<version>[^"\s]+)"\s*$/, scheme: tomlScheme },
  {
    applies: toml,
    pattern: /^\s*(?<name>[A-Za-z0-9_.-]+)\s*=\s*\{.*\bversion\s*=\s*"[~^=]?(?<version>[^"\s]+)".*\}\s*$/,
    scheme: tomlScheme,
  },
  // pre-commit: rev: v0.4.7, or a commit frozen with its tag (rev: <sha>  # frozen: v4.5.0)
  {
    applies: (p) => base(p) === '.pre-commit-config.yaml',
    pattern: new RegExp(
      String.raw`^\s*(?<name>rev):\s*['"]?(?:(?<pin>${SHA})['"]?\s*#\s*frozen:\s*)?(?<version>[^\s'"#]+)['"]?\s*$`,
    ),
    scheme: 'tag',
  },
  // GitHub Actions: uses: owner/action@v4.3.4, or uses: owner/action@<sha> # v4.3.4
  {
    applies: yaml,
    pattern: new RegExp(
      String.raw`^\s*(?:-\s*)?uses:\s*(?<name>[^@\s#]+)@(?:(?<pin>${SHA})\s*#\s*)?(?<version>v?\d[^\s#]*)\s*$`,
    ),
    scheme: 'tag',
  },
  // go.mod: require example.com/mod v1.2.3, or the same inside a require block, // indirect kept
  {
    applies: (p) => base(p) === 'go.mod',
    pattern: /^\s*(?:require\s+)?(?<name>[\w.~-]+\.[\w.~/-]+)\s+(?<version>v\d[^\s]*)(?:\s*\/\/.*)?\s*$/,
    scheme: 'tag',
  },
  // Dockerfile: FROM python:3.11-slim AS build (the variant after the version must stay alike)
  {
    applies: dockerfile,
    pattern:
      /^\s*FROM\s+(?:--\S+\s+)*(?<name>[^\s:@]+):(?<version>v?\d+(?:\.\d+)*)(?:[-_][\w.-]*)?(?:\s+AS\s+\S+)?\s*$/i,
    scheme: 'tag',
  },
];

/** The patterns with match indices (`d`): the version and the pin are cut out where they matched. */
const COMPILED = READERS.map((r) => ({ ...r, pattern: new RegExp(r.pattern.source, `${r.pattern.flags}d`) }));

/** `text` with the spans of the named groups replaced by a mark each (later spans first, so earlier ones keep their place). */
function cutOut(text: string, spans: ReadonlyArray<readonly [number, number] | undefined>): string {
  let out = text;
  for (const [i, span] of [...spans.entries()].sort((a, b) => (b[1]?.[0] ?? -1) - (a[1]?.[0] ?? -1)))
    if (span) out = `${out.slice(0, span[0])}\u0000${i}${out.slice(span[1])}`;
  return out;
}

/** The line's pinned dependency, or null when it is no dependency line of a kind the rule reads. */
export function versionedLine(line: string, path: string): VersionedLine | null {
  const text = line.replace(/\r?\n$/, '');
  for (const reader of COMPILED) {
    if (!reader.applies(path)) continue;
    const m = reader.pattern.exec(text);
    const groups = m?.groups;
    if (!m || !groups?.name || !groups.version) continue;
    const scheme = typeof reader.scheme === 'function' ? reader.scheme(path) : reader.scheme;
    if (!isVersion(groups.version, scheme)) continue;
    const spans = m.indices?.groups ?? {};
    const shape = cutOut(text, [spans.version, spans.pin]);
    return { name: groups.name, version: groups.version, pin: groups.pin ?? null, shape, scheme };
  }
  return null;
}
