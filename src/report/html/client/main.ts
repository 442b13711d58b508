/**
 * The report page's script, bundled into the page at build time (see ../client-script.ts): the
 * grid's hover tooltip, zoom, pan and keyboard cursor for both renderings (an SVG of cells for
 * small grids, a canvas drawn from the run-length data for large ones), and, in the live view,
 * the journal stream that refreshes the page. Untrusted text only ever reaches the DOM through
 * textContent. Sets `data-rendered` on <html> once the grid is drawn.
 */
import { initGrid } from './grid.js';
import { initLive, rendered } from './live.js';

initGrid();
rendered();
initLive();
