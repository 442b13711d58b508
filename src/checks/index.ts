export * from './types.js';
export * from './check-runner.js';
export * from './format.js';
export * from './extract-failure.js';
export * from './check-env.js';
export * from './sandbox.js';
export * from './from-config.js';
