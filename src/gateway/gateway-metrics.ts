/**
 * Prometheus metrics of a gateway (issue 21), with `prom-client`: requests, prompt tokens before
 * and after projection, compactions, summary latency, upstream errors and overflow retries.
 * Labels are bounded (format, status, compacted); session ids and models are never labels.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import type { GatewayEvent } from './gateway-events.ts';

/** Metrics fed by a gateway's events. */
export interface GatewayMetrics {
  readonly registry: Registry;
  /** Content type of {@link GatewayMetrics.text}. */
  readonly contentType: string;
  observe(event: GatewayEvent): void;
  /** The exposition text served at `/metrics`. */
  text(): Promise<string>;
}

/**
 * Creates the metrics, in a registry of their own (several gateways in one process do not clash).
 *
 * @param options `prefix` of every name; default `chatfold_gateway_`.
 */
export function createGatewayMetrics({
  prefix = 'chatfold_gateway_',
}: {
  readonly prefix?: string;
} = {}): GatewayMetrics {
  const registry = new Registry();
  const requests = new Counter({
    name: `${prefix}requests_total`,
    help: 'Requests forwarded upstream, by wire format, stream and upstream status.',
    labelNames: ['format', 'stream', 'status', 'compacted'] as const,
    registers: [registry],
  });
  const tokens = new Counter({
    name: `${prefix}prompt_tokens_total`,
    help: "Prompt tokens as the client sent them (before) and as the gateway sent them upstream (after), by chatfold's count.",
    labelNames: ['stage'] as const,
    registers: [registry],
  });
  const cached = new Counter({
    name: `${prefix}cached_prefix_tokens_total`,
    help: 'Prompt tokens sent that were an unchanged prefix of the previous prompt of the same session.',
    registers: [registry],
  });
  const gatewayTime = new Histogram({
    name: `${prefix}added_latency_seconds`,
    help: "Time from a request's arrival to its upstream call (mapping, appending, projecting).",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const compactions = new Counter({
    name: `${prefix}compactions_total`,
    help: 'Compactions run, by mode.',
    labelNames: ['mode'] as const,
    registers: [registry],
  });
  const summaries = new Histogram({
    name: `${prefix}summary_duration_seconds`,
    help: 'Time to write a summary, by source (llm, extractive).',
    labelNames: ['source'] as const,
    buckets: [0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const upstreamErrors = new Counter({
    name: `${prefix}upstream_errors_total`,
    help: 'Upstream error responses (by status) and unreachable upstreams (status "unreachable").',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const overflowRetries = new Counter({
    name: `${prefix}overflow_retries_total`,
    help: 'Prompts the upstream rejected as too long, compacted and sent again.',
    registers: [registry],
  });
  const branches = new Counter({
    name: `${prefix}branches_total`,
    help: 'Requests whose history diverged from their session (edited or regenerated) and went to a branch.',
    registers: [registry],
  });
  const recalls = new Counter({
    name: `${prefix}recalls_total`,
    help: 'chatfold_recall calls the gateway answered from the full history.',
    registers: [registry],
  });
  const fallbacks = new Counter({
    name: `${prefix}fallbacks_total`,
    help: 'Fallbacks taken and failures survived, by kind (a session event, reply-not-recorded, recall-failed).',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  return {
    registry,
    contentType: registry.contentType,
    text: () => registry.metrics(),
    observe(event) {
      switch (event.type) {
        case 'request':
          requests.inc({
            format: event.format,
            stream: String(event.stream),
            status: String(event.status),
            compacted: String(event.compacted),
          });
          tokens.inc({ stage: 'before' }, event.tokensBefore);
          tokens.inc({ stage: 'after' }, event.tokensAfter);
          cached.inc(event.cachedPrefixTokens);
          gatewayTime.observe(event.gatewayMs / 1000);
          if (event.branchedFrom !== undefined) branches.inc();
          return;
        case 'compaction':
          compactions.inc({ mode: event.mode });
          return;
        case 'summary':
          if (event.durationMs !== undefined)
            summaries.observe({ source: event.source }, event.durationMs / 1000);
          return;
        case 'upstream-error':
          upstreamErrors.inc({ status: String(event.status) });
          return;
        case 'upstream-unreachable':
          upstreamErrors.inc({ status: 'unreachable' });
          return;
        case 'overflow-retry':
          overflowRetries.inc();
          return;
        case 'recall':
          recalls.inc(event.calls);
          return;
        case 'session-fallback':
          fallbacks.inc({ kind: event.event });
          return;
        case 'reply-not-recorded':
        case 'recall-failed':
          fallbacks.inc({ kind: event.type });
          return;
        default:
          return;
      }
    },
  };
}
