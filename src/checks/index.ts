export * from './types.js';
export * from './check-runner.js';
export * from './format.js';
export * from './extract-failure.js';
export * from './baseline.js';
export * from './test-output/index.js';
