/** Validation of a resolved file lives with the grammars in resolve/; the resolver's tools use it from here. */
export { stageTexts, validateResolvedText } from '../../resolve/syntax/validate-text.js';
