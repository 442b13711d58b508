export * from './splintercat-error.js';
export * from './error-codes.js';
