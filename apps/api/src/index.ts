/** @satchel/api: the REST API over a Satchel engine, as a Hono app, and a Node server for it. */

export type { ApiEnv, ApiVariables } from './api-env.js';
export type { ApiOptions } from './app.js';
export { createApp } from './app.js';
export type { LogLevel } from './logging.js';
export { createLogger, LOG_LEVELS } from './logging.js';
export type { ApiMetrics, LockWaitOutcome } from './metrics.js';
export { createMetrics } from './metrics.js';
export type { FaultLogger, Problem } from './problem.js';
export { PROBLEM_CONTENT_TYPE } from './problem.js';
export type { RateLimitOptions } from './rate-limit.js';
export { DEFAULT_RATE_LIMIT, rateLimit } from './rate-limit.js';
export type { RunningServer, ServeOptions } from './serve.js';
export { DEFAULT_HOST, DEFAULT_PORT, serve } from './serve.js';
