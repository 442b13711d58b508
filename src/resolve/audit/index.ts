export * from './types.js';
export { auditFile } from './file-audit.js';
