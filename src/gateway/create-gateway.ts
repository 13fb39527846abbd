/**
 * `createGateway()` (issue 21): context management for any client by changing one base URL.
 * A Hono app that speaks OpenAI Chat Completions and Anthropic Messages, keeps each
 * conversation in a store, sends the upstream a projection that fits the window, and returns
 * the upstream's answer unchanged.
 */
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { CompactionQueue } from '../background/types.ts';
import type { FullStore } from '../stores/types.ts';
import type { Summarizer } from '../summarize/types.ts';
import { anthropicCountTokens, anthropicMessages } from './anthropic-messages-route.ts';
import { forwardErrorResponse } from './forward-errors.ts';
import { type GatewayVariables, gatewayAuth } from './gateway-auth.ts';
import type { GatewayConfig, UpstreamKeyMode } from './gateway-config.ts';
import type { GatewayEventListener } from './gateway-events.ts';
import type { GatewayMetrics } from './gateway-metrics.ts';
import { createGatewayRuntime, type GatewayRuntime } from './gateway-runtime.ts';
import { openAIChatCompletions } from './openai-chat-route.ts';
import { passedResponse, sendUpstream, type UpstreamAuth, upstreamHeaders, upstreamUrl } from './upstream.ts';
import { describeError, GatewayError, wireError } from './wire-errors.ts';

/** Largest request body by default: long agent histories with tool output are large. */
export const DEFAULT_GATEWAY_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Environment variable holding the key the gateway sends upstream (`upstreamKey: 'env'`). */
export const UPSTREAM_KEY_ENV = 'CHATFOLD_UPSTREAM_API_KEY';

/** Options of {@link createGateway}. */
export interface GatewayOptions {
  /** Base URL of the upstream: `http://127.0.0.1:11434/v1` (Ollama), `https://api.openai.com/v1`, … */
  readonly upstream: string;
  /** Wire format of the upstream. Default `openai`. */
  readonly upstreamFormat?: 'openai' | 'anthropic';
  /**
   * Which key reaches the upstream: `{ type: 'key', key }`, the client's own (`passthrough`),
   * or `none`. Default: `CHATFOLD_UPSTREAM_API_KEY` when set, else the client's.
   */
  readonly upstreamAuth?: UpstreamAuth;
  /** Where conversations live (every built-in store). */
  readonly store: FullStore;
  /** Windows and policies per model and route (`parseGatewayConfig`). */
  readonly config?: GatewayConfig;
  /** When set, every request must carry it (see `gatewayAuth`); without it, loopback Hosts only. */
  readonly token?: string;
  /** LLM summarizer; default the extractive one (no model call). */
  readonly summarizer?: Summarizer;
  /** Summaries off the request path: a queue a worker drains (`runCompactionWorker`). */
  readonly background?: { readonly queue: CompactionQueue; readonly threshold?: number };
  /** Prometheus metrics served at `/metrics` (`createGatewayMetrics()`). */
  readonly metrics?: GatewayMetrics;
  /** Every event (requests, retries, errors); never content or keys. */
  readonly onEvent?: GatewayEventListener;
  /** The `fetch` the upstream is called with (tests). */
  readonly fetch?: typeof fetch;
  readonly maxBodyBytes?: number;
}

/** A gateway app. */
export interface Gateway {
  /** The Hono app: `app.fetch(request)`, or mount it. */
  readonly app: Hono<{ Variables: GatewayVariables }>;
  readonly runtime: GatewayRuntime;
}

/**
 * The upstream key for a mode.
 *
 * @param mode `env`, `passthrough` or `none`; undefined: `env` when the variable is set, else `passthrough`.
 * @param env Where `CHATFOLD_UPSTREAM_API_KEY` is read.
 */
export function upstreamAuthFor(
  mode: UpstreamKeyMode | undefined,
  env: NodeJS.ProcessEnv = process.env,
): UpstreamAuth {
  const key = env[UPSTREAM_KEY_ENV]?.trim();
  if (mode === 'none') return { type: 'none' };
  if (mode === 'passthrough') return { type: 'passthrough' };
  if (key !== undefined && key !== '') return { type: 'key', key };
  return mode === 'env' ? { type: 'none' } : { type: 'passthrough' };
}

/**
 * Creates a gateway.
 *
 * @param options Upstream, store, configuration.
 * @returns The app and its runtime.
 * @example
 * const gateway = createGateway({ upstream: 'http://127.0.0.1:11434/v1', store: sqliteStore('gw.db'), config: { window: 32_000 } });
 * serve({ fetch: gateway.app.fetch, port: 4000, hostname: '127.0.0.1' });
 */
export function createGateway(options: GatewayOptions): Gateway {
  const format = options.upstreamFormat ?? options.config?.upstreamFormat ?? 'openai';
  const auth = options.upstreamAuth ?? upstreamAuthFor(options.config?.upstreamKey);
  const metrics = options.metrics;
  const runtime = createGatewayRuntime({
    upstream: options.upstream,
    upstreamFormat: format,
    auth,
    store: options.store,
    config: options.config ?? {},
    ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
    ...(options.background === undefined ? {} : { background: options.background }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    onEvent: (event) => {
      metrics?.observe(event);
      options.onEvent?.(event);
    },
  });
  const maxBodyBytes = options.maxBodyBytes ?? options.config?.maxBodyBytes ?? DEFAULT_GATEWAY_MAX_BODY_BYTES;
  const app = new Hono<{ Variables: GatewayVariables }>();
  const clientFormat = (path: string) => (/\/v1\/messages(\/|$)/.test(path) ? 'anthropic' : 'openai');

  app.onError((error, context) => {
    const described = describeError(error);
    if (described.status >= 500)
      runtime.emit({ type: 'error', where: context.req.path, code: described.code });
    const response = wireError(
      clientFormat(context.req.path),
      described.status,
      described.code,
      described.message,
    );
    if (described.status === 401) response.headers.set('WWW-Authenticate', 'Bearer realm="chatfold-gateway"');
    return response;
  });
  app.notFound((context) =>
    wireError(
      clientFormat(context.req.path),
      404,
      'E_NOT_FOUND',
      `no route ${context.req.method} ${context.req.path}`,
    ),
  );
  app.get('/healthz', (context) => context.json({ status: 'ok' }));
  if (metrics !== undefined) {
    app.get(
      '/metrics',
      gatewayAuth(options.token),
      async () => new Response(await metrics.text(), { headers: { 'content-type': metrics.contentType } }),
    );
  }
  app.use('*', gatewayAuth(options.token));
  app.use(
    '*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new GatewayError(
          413,
          'E_BODY_TOO_LARGE',
          `request bodies are limited to ${maxBodyBytes} bytes (maxBodyBytes)`,
        );
      },
    }),
  );

  const routeOf = (value: string | undefined): string | undefined => {
    if (value === undefined) return undefined;
    if (options.config?.routes?.[value] === undefined) {
      throw new GatewayError(404, 'E_NOT_FOUND', `no route ${JSON.stringify(value)} in the gateway's config`);
    }
    return value;
  };

  // Anything else under /v1 (embeddings, model details, …) goes upstream unchanged.
  const passThrough = async (context: Context<{ Variables: GatewayVariables }>, path: string) => {
    const search = new URL(context.req.url).search;
    const method = context.req.method;
    const body = method === 'GET' || method === 'HEAD' ? undefined : await context.req.text();
    try {
      const response = await sendUpstream({
        url: upstreamUrl(options.upstream, path, search),
        method,
        headers: upstreamHeaders(context.get('incoming'), auth, format),
        ...(body === undefined ? {} : { body }),
        signal: context.req.raw.signal,
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      });
      return passedResponse(response);
    } catch (error) {
      return forwardErrorResponse(runtime, clientFormat(path), '', error);
    }
  };

  for (const prefix of ['/v1', '/:route/v1']) {
    app.post(`${prefix}/chat/completions`, (context) =>
      openAIChatCompletions(runtime, context, routeOf(context.req.param('route'))),
    );
    app.post(`${prefix}/messages`, (context) =>
      anthropicMessages(runtime, context, routeOf(context.req.param('route'))),
    );
    app.post(`${prefix}/messages/count_tokens`, (context) =>
      anthropicCountTokens(runtime, context, routeOf(context.req.param('route')), { ...options, auth }),
    );
    app.all(`${prefix}/*`, (context) => {
      routeOf(context.req.param('route'));
      const path = context.req.path.replace(/^(\/[^/]+)?\/v1/, '');
      return passThrough(context, path);
    });
  }
  return { app, runtime };
}
