import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { compress } from 'hono/compress';
import type { AgentOptions } from '../../agent/types.ts';
import { resolvePolicy } from '../../policy/presets.ts';
import type { Store } from '../../stores/types.ts';
import type { ServerInfo } from '../api-types.ts';
import { type AgentFactory, AgentPool } from './agent-pool.ts';
import { toGauge } from './context-gauge.ts';
import { errorResponse, HttpError } from './http-error.ts';
import { DEFAULT_MAX_SUMMARY_CHARS, DEFAULT_SUMMARY_TIMEOUT_MS } from './manual-summary.ts';
import type { Redactor } from './redact.ts';
import { compactionRoutes } from './routes/compactions.ts';
import { historyRoutes } from './routes/history.ts';
import { infoRoutes } from './routes/info.ts';
import { sessionRoutes } from './routes/sessions.ts';
import { settingsRoutes } from './routes/settings.ts';
import { turnRoutes } from './routes/turns.ts';
import { loopbackHostOnly, requireToken, sameOriginWrites, securityHeaders } from './security.ts';
import { clientRoutes } from './static-client.ts';
import type { WebDeps } from './web-deps.ts';
import { jsonLineLog, silentLog } from './web-log.ts';
import { readWebSettings, writeWebSettings } from './web-settings.ts';
import { asWebStore } from './web-store.ts';

/** Largest request body the API reads (WEB-8). */
export const DEFAULT_MAX_BODY_BYTES = 512 * 1024;

/** Options of {@link createWebApp}. */
export interface WebAppOptions {
  /** Sessions, history and settings (SQLite, PostgreSQL, JSONL or memory). */
  readonly store: Store;
  /** The agent every session runs: model, instructions, tools, history strategy, context, summarizer. */
  readonly agent: Omit<AgentOptions, 'store' | 'session'>;
  /** `createAgent` from `chatfold/agent`. */
  readonly createAgent: AgentFactory;
  /** The model id thresholds are keyed by, e.g. `gpt-4o`. */
  readonly modelId: string;
  /** `provider:model`, shown in the page. */
  readonly modelLabel: string;
  /** When set, every API call needs `Authorization: Bearer <token>` (WEB-8). */
  readonly token?: string;
  /**
   * Origins allowed to make state-changing requests, e.g. `http://127.0.0.1:8080` (WEB-8).
   * With a token, the origin of the request's own `Host` is allowed too.
   */
  readonly allowedOrigins: readonly string[];
  /** The built client; `undefined` serves a page that says how to build it. */
  readonly clientDir: string | undefined;
  /** Hides API keys and the token in everything sent to the browser (WEB-8). */
  readonly redact: Redactor;
  /** Answers come from chatfold's fake provider: the page says so (keyless try). */
  readonly fakeProvider?: boolean;
  readonly version: string;
  readonly maxBodyBytes?: number;
  /**
   * Where the server's log lines go, one JSON object per line, already redacted: unexpected
   * errors (HTTP 500), and every summarizer failure or fallback with session, mode and cause
   * (FR-5.1.1). Default: nowhere.
   */
  readonly log?: (line: string) => void;
  /** How long a manual summary may take before it fails with Retry (FR-5.1.2). Default 120 s. */
  readonly summaryTimeoutMs?: number;
  /** Longest summary text accepted from the summarizer, in characters. Default 32,000. */
  readonly maxSummaryChars?: number;
}

/**
 * The web app (CLI-4, WEB-1..8) as a `fetch(Request) → Response` Hono app: the JSON API under
 * `/api`, one SSE stream per turn, and the built client. Testable in process with
 * `app.request(...)`; `startWebServer` serves it over HTTP.
 *
 * Security (WEB-8): without a token only loopback `Host`s are answered; with one, every API
 * call needs it; state-changing requests must come from an allowed `Origin`; bodies are
 * bounded and validated; a strict Content-Security-Policy on every response; error texts and
 * streams pass through the redactor.
 */
export function createWebApp(options: WebAppOptions): { app: Hono; pool: AgentPool } {
  const store = asWebStore(options.store);
  const settings = {
    read: () => readWebSettings(store),
    write: (patch: Parameters<typeof writeWebSettings>[1]) => writeWebSettings(store, patch),
  };
  const pool = new AgentPool({
    store,
    agent: options.agent,
    modelId: options.modelId,
    createAgent: options.createAgent,
    settings: settings.read,
  });
  // The chat-app policy is this app's default; an agent file's own policy wins.
  const webPolicy = resolvePolicy(options.agent.context?.policy ?? 'chat-app');
  const info: ServerInfo = {
    version: options.version,
    agent: options.agent.name ?? 'agent',
    model: options.modelLabel,
    modelId: options.modelId,
    fakeProvider: options.fakeProvider === true,
    store: store.kind,
    defaultThreshold:
      options.agent.context?.threshold ??
      webPolicy.triggers.find((group) => group.fraction !== undefined)?.fraction ??
      0.95,
    defaultRetentionTokens: options.agent.context?.retentionTokens ?? webPolicy.retention.tokens ?? 1000,
    policy: webPolicy,
  };
  const log = options.log === undefined ? silentLog : jsonLineLog(options.log, options.redact);
  const deps: WebDeps = {
    store,
    pool,
    info,
    redact: options.redact,
    settings,
    log,
    summaryLimits: {
      timeoutMs: options.summaryTimeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS,
      maxChars: options.maxSummaryChars ?? DEFAULT_MAX_SUMMARY_CHARS,
    },
    async gauge(sessionId) {
      const agent = await pool.agent(sessionId);
      return toGauge(await agent.session.status());
    },
  };

  const allowed = new Set(options.allowedOrigins);
  const app = new Hono();
  app.onError((error, context) => {
    const response = errorResponse(context, error, options.redact);
    if (response.status >= 500) {
      log({
        level: 'error',
        event: 'request-failed',
        method: context.req.method,
        path: context.req.path,
        cause: error.stack ?? error.message,
      });
    }
    return response;
  });
  app.use('*', securityHeaders());
  if (options.token === undefined) app.use('*', loopbackHostOnly());

  const api = new Hono();
  api.use(
    '*',
    bodyLimit({
      maxSize: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      onError: () => {
        throw new HttpError(
          413,
          'E_BODY_TOO_LARGE',
          `request bodies are limited to ${((options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES) / 1024).toLocaleString('en-US')} KiB`,
        );
      },
    }),
  );
  if (options.token !== undefined) api.use('*', requireToken(options.token));
  api.use(
    '*',
    sameOriginWrites((host) =>
      options.token !== undefined && host !== undefined
        ? new Set([...allowed, `http://${host}`, `https://${host}`])
        : allowed,
    ),
  );
  api.route('/info', infoRoutes(deps));
  api.route('/settings', settingsRoutes(deps));
  api.route('/sessions', sessionRoutes(deps));
  api.route('/sessions', historyRoutes(deps));
  api.route('/sessions', turnRoutes(deps));
  api.route('/sessions', compactionRoutes(deps));
  api.all('*', (context) => {
    throw new HttpError(404, 'E_NOT_FOUND', `no API route ${context.req.method} ${context.req.path}`);
  });
  app.route('/api', api);

  app.use('/assets/*', compress());
  app.route('/', clientRoutes(options.clientDir));
  return { app, pool };
}
