import { closeSync, existsSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ensureOwnDir, openAppendNoFollow } from './own-dir.js';

/**
 * A synchronous append-only log file rotated by size: when it passes `maxBytes`
 * it is renamed `NAME.YYYYMMDD-HHMMSS[-n].log` and a new file starts. Rotated files
 * older than `retentionDays` are deleted when the file is opened. Synchronous on
 * purpose: a CLI that exits (or is killed) right after logging loses nothing.
 */
export class RollingFile {
  private fd: number;
  private size: number;

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
    retentionDays: number,
    private readonly now: () => Date = () => new Date(),
    /** The working tree the file may lie in: no link there is followed (see own-dir.ts). */
    root: string = dirname(path),
  ) {
    ensureOwnDir(dirname(path), root);
    this.deleteOld(retentionDays);
    this.fd = openAppendNoFollow(path);
    this.size = statSync(path).size;
  }

  write(chunk: string): void {
    if (this.size > 0 && this.size + Buffer.byteLength(chunk) > this.maxBytes) this.rotate();
    this.size += writeSync(this.fd, chunk);
  }

  close(): void {
    closeSync(this.fd);
  }

  private rotate(): void {
    closeSync(this.fd);
    const stem = basename(this.path).replace(/\.log$/, '');
    const d = this.now();
    const p = (n: number): string => String(n).padStart(2, '0');
    const stamp = `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
    let target = join(dirname(this.path), `${stem}.${stamp}.log`);
    for (let n = 2; existsSync(target); n++) target = join(dirname(this.path), `${stem}.${stamp}-${n}.log`);
    renameSync(this.path, target);
    this.fd = openAppendNoFollow(this.path);
    this.size = 0;
  }

  private deleteOld(retentionDays: number): void {
    const stem = basename(this.path).replace(/\.log$/, '');
    const limit = this.now().getTime() - retentionDays * 86_400_000;
    const dir = dirname(this.path);
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      if (!name.startsWith(`${stem}.`) || name === basename(this.path) || !name.endsWith('.log')) continue;
      const full = join(dir, name);
      if (statSync(full).mtimeMs < limit) unlinkSync(full);
    }
  }
}
