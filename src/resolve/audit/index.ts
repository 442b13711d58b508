export * from './types.js';
export { auditFile, auditCell, sideLost } from './file-audit.js';
