/** @satchel/web: the web app for people, mounted by `satchel serve` at `/` (docs/web.md). */
export type { WebOptions } from './web-app.js';
export { webApp } from './web-app.js';
