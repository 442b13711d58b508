export * from './logger.js';
export * from './create-logger.js';
export * from './redact.js';
export * from './rolling-file.js';
