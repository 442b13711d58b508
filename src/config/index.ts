export * from './goals.js';
export * from './schema.js';
export * from './load.js';
export * from './template.js';
export * from './stored-config.js';
export * from './secret-sources.js';
