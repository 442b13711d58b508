export * from './record.js';
export * from './run-sync.js';
export * from './ref-mirror.js';
export * from './run-records.js';
export * from './claims.js';
