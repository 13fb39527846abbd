/**
 * Runs a gateway on a Node HTTP server (issue 21): loopback by default, a token required on
 * any other interface, the connection limits of `chatfold serve`, and a graceful close that
 * lets requests in flight (streams too) finish.
 */
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import {
  type ConnectionCounts,
  type HttpLimits,
  httpServerOptions,
  limitConnections,
} from '../web/server/connection-limits.ts';
import { checkBind, whenListening } from '../web/server/start-web-server.ts';
import { createGateway, type Gateway, type GatewayOptions } from './create-gateway.ts';

/** Default port of `chatfold gateway`. */
export const DEFAULT_GATEWAY_PORT = 4000;

/** How long a graceful close waits for requests in flight before closing their connections. */
export const DEFAULT_DRAIN_MS = 10_000;

/** Options of {@link startGateway}. */
export interface StartGatewayOptions extends GatewayOptions {
  /** Interface to listen on. Default `127.0.0.1`; any other needs `token`. */
  readonly host?: string;
  /** Port; 0 picks a free one. Default {@link DEFAULT_GATEWAY_PORT}. */
  readonly port?: number;
  /** Timeouts and connection caps; each defaults to `HTTP_LIMITS`. */
  readonly limits?: HttpLimits;
}

/** A running gateway. */
export interface GatewayServer {
  /** `http://127.0.0.1:4000`; clients use `${url}/v1` as their base URL. */
  readonly url: string;
  readonly port: number;
  readonly gateway: Gateway;
  connections(): ConnectionCounts;
  /**
   * Stops accepting connections, waits up to `drainMs` for requests in flight (streams
   * included) to finish, then closes what is left.
   */
  close(options?: { readonly drainMs?: number }): Promise<void>;
}

/**
 * Starts a gateway.
 *
 * @param options The gateway's options plus host, port and limits.
 * @returns Its URL and `close()`.
 * @throws ChatfoldError `E_INVALID_OPTIONS` for a non-loopback host without a token, a short
 *   token, or a port that cannot be bound.
 * @example
 * const server = await startGateway({ upstream: 'http://127.0.0.1:11434/v1', store: sqliteStore('gw.db'), config: { window: 32_000 } });
 * // new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused' })
 */
export async function startGateway(options: StartGatewayOptions): Promise<GatewayServer> {
  const { host = '127.0.0.1', port = DEFAULT_GATEWAY_PORT, limits, ...gatewayOptions } = options;
  checkBind(host, gatewayOptions.token);
  const gateway = createGateway(gatewayOptions);
  const server = serve({
    fetch: gateway.app.fetch,
    hostname: host,
    port,
    serverOptions: httpServerOptions(limits),
  }) as Server;
  const connections = limitConnections(server, limits);
  const listening = await whenListening(server, host, port);
  let closing: Promise<void> | undefined;
  return {
    ...listening,
    gateway,
    connections,
    close: ({ drainMs = DEFAULT_DRAIN_MS } = {}) => {
      closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), drainMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
