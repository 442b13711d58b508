export * from './splintercat-error.js';
