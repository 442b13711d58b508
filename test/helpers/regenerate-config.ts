import { join } from 'node:path';
import { configSchema, type Config } from '../../src/config/schema.js';

/** The default configuration, with check logs (a regenerate command's among them) in the repository's `.git`. */
export function regenerateConfig(repoDir: string, check: Record<string, unknown> = {}): Config {
  return configSchema.parse({ check: { timeout: 60, ...check }, log: { dir: join(repoDir, '.git', 'check-logs') } });
}
