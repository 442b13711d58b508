export * from './git.js';
export * from './git-types.js';
export * from './git-env.js';
export * from './git-error.js';
export * from './cat-file.js';
export * from './locate.js';
export * from './process-ref.js';
