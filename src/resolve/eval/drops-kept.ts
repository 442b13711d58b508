import { auditFile } from '../audit/file-audit.js';
import type { AuditInput, SideAudit } from '../audit/types.js';

/** The lines a side lost, by place: `a:N` an added line (dropped or rewritten) at side line N, `r:N` a removed line back. */
function lostPlaces(side: SideAudit): Set<string> {
  const places = new Set<string>();
  for (const h of side.losses) {
    for (const l of [...h.dropped, ...h.rewritten]) places.add(`a:${l.line}`);
    for (const l of h.restored) places.add(`r:${l.line}`);
  }
  return places;
}

/**
 * Whether a resolution (`text`, null: the file deleted) drops a line of a side's change that the
 * person's own resolution of the case (`c.resolved`) kept: a loss the person did not make. Drops the person made
 * too are theirs to make, not the rung's fault.
 */
export function dropsWhatPersonKept(c: AuditInput, text: string | null): boolean {
  const versions = { path: c.path, base: c.base, ours: c.ours, theirs: c.theirs };
  const rung = auditFile({ ...versions, resolved: text });
  if (rung.skipped !== null) return false;
  const person = auditFile({ ...versions, resolved: c.resolved });
  return (['ours', 'theirs'] as const).some((side) => {
    const theirs = lostPlaces(person[side]);
    return [...lostPlaces(rung[side])].some((place) => !theirs.has(place));
  });
}
