import * as z from 'zod';
import { readTreeRecord, treeRecordPath, writeTreeRecord } from './tree-record.js';

/** Candidates kept per file, and the size of each: a model's text is bounded before it is stored. */
const MAX_CANDIDATES = 5;
const MAX_CANDIDATE_BYTES = 1024 * 1024;

const recordSchema = z.object({
  version: z.literal(1),
  files: z.record(
    z.string(),
    z.object({
      /** `base:ours:theirs` blob ids of the path's index stages: a new merge of the path forgets them. */
      stages: z.string(),
      candidates: z
        .array(z.object({ text: z.string().max(MAX_CANDIDATE_BYTES), modelId: z.string().max(200) }))
        .max(MAX_CANDIDATES),
    }),
  ),
});
type CandidateRecord = z.infer<typeof recordSchema>;

/** One resolution a model wrote that was not taken as the model's: the person may take it (`take candidate K FILE`). */
export interface StoredCandidate {
  text: string;
  modelId: string;
}

/** Kept in the working tree's own git directory, beside the hunk numbers. */
function recordPath(gitDir: string): string {
  return treeRecordPath(gitDir, 'candidates.json');
}

/** The record; missing or damaged, no candidate is offered. */
async function load(gitDir: string): Promise<CandidateRecord> {
  return (await readTreeRecord(recordPath(gitDir), recordSchema)) ?? { version: 1, files: {} };
}

/** Keep a file's candidates (the first MAX_CANDIDATES; one over the size bound is left out) for `take candidate`. */
export async function recordCandidates(
  gitDir: string,
  path: string,
  stages: string,
  candidates: readonly StoredCandidate[],
): Promise<void> {
  const record = await load(gitDir);
  const kept = candidates
    .filter((c) => Buffer.byteLength(c.text) <= MAX_CANDIDATE_BYTES)
    .slice(0, MAX_CANDIDATES)
    .map((c) => ({ text: c.text, modelId: c.modelId.slice(0, 200) }));
  record.files[path] = { stages, candidates: kept };
  await writeTreeRecord(recordPath(gitDir), record, { pretty: false });
}

/** A file's candidates, when they were recorded for the merge of the path as it is now (same index stages). */
export async function loadCandidates(gitDir: string, path: string, stages: string): Promise<StoredCandidate[]> {
  const entry = (await load(gitDir)).files[path];
  return entry && entry.stages === stages ? entry.candidates : [];
}
