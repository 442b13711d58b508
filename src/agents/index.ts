export * from './model-error.js';
export * from './model-factory.js';
export * from './model-gateway.js';
export * from './model-rung.js';
export * from './planner.js';
export * from './resilience.js';
export * from './summarizer.js';
export * from './usage.js';
export * from './log-truncate.js';
export {
  resolveWithModel,
  type ResolveWithModelInput,
  type ResolverDeps,
  type ResolverOutcome,
  type ResolverFailure,
  type ToolCallRecord,
} from './resolver/resolver-agent.js';
export { Sandbox, normalizeRel } from './resolver/tool-sandbox.js';
export { validateResolvedText } from './resolver/validate.js';
export { formatCheckForModel } from './resolver/check-tools.js';
export * from './model-setup.js';
export * from './planner-review.js';
export * from './fork-instructions.js';
