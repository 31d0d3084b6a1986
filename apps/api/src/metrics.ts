/** Prometheus metrics of one app: requests by route pattern, bytes, lock waits, webhook queue. */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** The `route` label of requests no route matched (404, 405): one label, whatever the URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/** How a lock acquisition through `POST …/locks` ended. */
export type LockWaitOutcome = 'acquired' | 'locked' | 'failed';

/** One finished request, as the observing middleware saw it. */
export interface RequestObservation {
  readonly method: string;
  /** The Hono route pattern (`/v1/workspaces/:ws/files/*`) or UNMATCHED_ROUTE; never a raw URL. */
  readonly route: string;
  readonly status: number;
  readonly seconds: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
}

export interface ApiMetrics {
  /** This app's registry (not prom-client's global one: a process may hold many apps). */
  readonly registry: Registry;
  observeRequest(request: RequestObservation): void;
  observeLockWait(seconds: number, outcome: LockWaitOutcome): void;
}

export interface MetricsOptions {
  /** Pending webhook deliveries; without it `satchel_webhook_queue_depth` is not registered. */
  readonly webhookQueueDepth?: () => Promise<number>;
}

const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LOCK_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60];

/**
 * A fresh registry with the API's metrics and Node's default process metrics:
 * `satchel_http_requests_total{method,route,status}`,
 * `satchel_http_request_duration_seconds{method,route}` (until the response body is sent),
 * `satchel_http_request_bytes_total` / `satchel_http_response_bytes_total{method,route}` (body
 * bytes, as streamed), `satchel_lock_wait_seconds{outcome}` and, when its source is given,
 * `satchel_webhook_queue_depth`.
 */
export function createMetrics(options: MetricsOptions = {}): ApiMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'satchel_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'satchel_http_request_duration_seconds',
    help: 'Time from receiving a request to sending the last byte of its response',
    labelNames: ['method', 'route'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const bytesIn = new Counter({
    name: 'satchel_http_request_bytes_total',
    help: 'Request body bytes received, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    registers,
  });
  const bytesOut = new Counter({
    name: 'satchel_http_response_bytes_total',
    help: 'Response body bytes sent, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    registers,
  });
  const lockWait = new Histogram({
    name: 'satchel_lock_wait_seconds',
    help: 'Time POST /locks took to acquire a lock (or give up), by outcome',
    labelNames: ['outcome'] as const,
    buckets: LOCK_BUCKETS,
    registers,
  });
  const depth = options.webhookQueueDepth;
  if (depth !== undefined) {
    new Gauge({
      name: 'satchel_webhook_queue_depth',
      help: 'Webhook deliveries waiting to be sent or retried',
      registers,
      async collect() {
        this.set(await depth());
      },
    });
  }
  return {
    registry,
    observeRequest(r) {
      const route = { method: r.method, route: r.route };
      requests.inc({ ...route, status: String(r.status) });
      duration.observe(route, r.seconds);
      // inc(0) still creates the series, so every route that answered shows both counters.
      bytesIn.inc(route, r.bytesIn);
      bytesOut.inc(route, r.bytesOut);
    },
    observeLockWait(seconds, outcome) {
      lockWait.observe({ outcome }, seconds);
    },
  };
}
