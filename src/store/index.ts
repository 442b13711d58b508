export * from './json-file.js';
export * from './journal.js';
export * from './run-store.js';
export * from './doctor.js';
