export { withCellDrops, unreasonedDrops } from './cell-drops.js';
export { lossWords, SIDE_NAMES } from './drop-text.js';
export { dropReason, decidedBy } from './drop-reason.js';
export { lostCount } from './file-drops.js';
