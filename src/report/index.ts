export * from './model.js';
export * from './snapshot.js';
export * from './build-model.js';
export * from './load-run.js';
export * from './status-text.js';
export * from './markdown.js';
export * from './ui-server.js';
export { renderHtmlReport, renderReportBody } from './html/page.js';
