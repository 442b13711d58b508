import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readRegular } from '../../util/safe-read.js';
import { createRequire } from 'node:module';
import type * as FastXmlParser from 'fast-xml-parser';
import { jsFrames, oneLine, pickLocation } from './lines.js';
import type { FailedTest } from './types.js';

/** Where a check writes JUnit XML: files, or directories searched recursively for `*.xml`. */
export interface JUnitSource {
  paths: string[];
  /** Ignore files last written before this time (ms since the epoch): a report left by an earlier run is not this run's. */
  since?: number;
}

// fast-xml-parser: pure JavaScript, no native addon, widely used (the AWS SDK's XML layer); it validates, and
// decodes entities and CDATA, which JUnit writers use freely (mocha's xunit escapes every quote as `&#x27;`,
// surefire and jest-junit wrap output in CDATA). A regular expression would get those wrong.
// Loaded the first time a report is read, so the CLI starts without it.
const require = createRequire(import.meta.url);
let xml: { parser: FastXmlParser.XMLParser; validator: typeof FastXmlParser.XMLValidator } | undefined;

function xmlLibrary(): { parser: FastXmlParser.XMLParser; validator: typeof FastXmlParser.XMLValidator } {
  if (xml) return xml;
  const { XMLParser, XMLValidator } = require('fast-xml-parser') as typeof FastXmlParser;
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    htmlEntities: true,
    parseAttributeValue: false,
    parseTagValue: false,
    trimValues: false,
    isArray: (name) => ['testsuites', 'testsuite', 'testcase', 'failure', 'error', 'skipped'].includes(name),
  });
  xml = { parser, validator: XMLValidator };
  return xml;
}

type Node = Record<string, unknown>;

/**
 * The failing test cases of the JUnit XML reports found at `source`: a `<testcase>` with a `<failure>` or
 * `<error>` child. Null when no report could be read (none there, or none valid). Identity:
 * `classname > name` (mocha's xunit joins the suites into classname; vitest puts the file there).
 */
export function readJUnitFailures(
  source: JUnitSource,
  cwd: string | undefined,
): { failures: FailedTest[]; ran: number } | null {
  let read = 0;
  let ran = 0;
  const failures: FailedTest[] = [];
  for (const [file, root] of xmlFiles(source)) {
    const text = readable(file, root);
    if (text === null) continue;
    const { parser, validator } = xmlLibrary();
    if (validator.validate(text) !== true) continue;
    read++;
    for (const testcase of testcases(parser.parse(text) as Node)) {
      if (testcase.skipped === undefined) ran++;
      const problem = (asArray(testcase.failure)[0] ?? asArray(testcase.error)[0]) as Node | string | undefined;
      if (problem !== undefined) failures.push(failureOf(testcase, problem, cwd));
    }
  }
  return read === 0 ? null : { failures, ran };
}

/** Each report with the directory it must be in (the one searched, or its own). */
function xmlFiles(source: JUnitSource): Array<[string, string]> {
  const files: Array<[string, string]> = [];
  for (const path of source.paths) {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    const found = stat.isDirectory()
      ? readdirSync(path, { recursive: true, encoding: 'utf8' })
          .filter((f) => f.endsWith('.xml'))
          .map((f) => join(path, f))
      : [path];
    const root = stat.isDirectory() ? path : dirname(path);
    for (const f of found)
      if (source.since === undefined || (statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0) >= source.since)
        files.push([f, root]);
  }
  return files.sort((a, b) => a[0].localeCompare(b[0]));
}

/**
 * A report that cannot be read (removed meanwhile, no permission, a directory named `x.xml`) is
 * skipped like an invalid one; so is a link (to a key, to `/proc/self/environ`): the check wrote it.
 */
function readable(file: string, root: string): string | null {
  const read = readRegular(file, { within: root, maxBytes: REPORT_BYTES });
  return read.ok && !read.truncated ? read.bytes.toString('utf8') : null;
}

/** A report larger than this is not read (the test log says what failed too). */
const REPORT_BYTES = 64 * 1024 * 1024;

function testcases(node: unknown): Node[] {
  if (Array.isArray(node)) return node.flatMap(testcases);
  if (typeof node !== 'object' || node === null) return [];
  const n = node as Node;
  return [
    ...asArray(n.testcase).filter((t): t is Node => typeof t === 'object' && t !== null),
    ...testcases(n.testsuites),
    ...testcases(n.testsuite),
  ];
}

function failureOf(testcase: Node, problem: Node | string, cwd: string | undefined): FailedTest {
  const name = String(testcase.name ?? '');
  const classname = String(testcase.classname ?? testcase.class ?? '');
  const text = typeof problem === 'string' ? problem : String(problem['#text'] ?? '');
  const attr = typeof problem === 'string' ? {} : problem;
  const type = typeof attr.type === 'string' ? attr.type : '';
  const said = firstStatement(typeof attr.message === 'string' && attr.message.trim() ? attr.message : text);
  const message = type && !said.startsWith(type) ? `${type}: ${said}` : said;
  const lines = text.split('\n');
  const pyLines = lines
    .map((l) => /^(\S+?\.py):(\d+):/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ path: m[1] as string, line: m[2] as string }));
  const declared =
    typeof testcase.file === 'string' && typeof testcase.line === 'string'
      ? [{ path: testcase.file, line: testcase.line }]
      : [];
  return {
    id: classname ? `${classname} > ${name}` : name,
    title: name.split(' > ').pop() as string,
    message: oneLine([message]),
    location: pickLocation([...declared, ...jsFrames(lines), ...pyLines], cwd),
    excerpt: lines.slice(0, 20).join('\n').trim(),
  };
}

/** The first non-empty line, and the next one too when it ends with `:` ("Expected values to be strictly equal:"). */
function firstStatement(text: string): string {
  const lines = text.split('\n').filter((l) => l.trim());
  const first = lines[0] ?? 'failed';
  return first.trim().endsWith(':') && lines[1] ? `${first.trim()} ${lines[1].trim()}` : first;
}

function asArray(value: unknown): unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}
