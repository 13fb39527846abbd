import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import {
  type ConnectionCounts,
  type HttpLimits,
  httpServerOptions,
  limitConnections,
} from './connection-limits.ts';
import { createWebApp, type WebAppOptions } from './create-web-app.ts';
import { isLoopbackHost } from './security.ts';
import { asWebStore } from './web-store.ts';

/** Shortest access token accepted (WEB-8): a guessable token is no protection. */
export const MIN_TOKEN_LENGTH = 16;

/** Options of {@link startWebServer}. */
export interface StartWebServerOptions extends Omit<WebAppOptions, 'allowedOrigins'> {
  /** Interface to listen on. Default `127.0.0.1` (WEB-8). */
  readonly host?: string;
  /** Port; 0 picks a free one. Default 8080. */
  readonly port?: number;
  /** Timeouts and connection caps (issue 24); each defaults to `HTTP_LIMITS`. */
  readonly limits?: HttpLimits;
}

/** A running web app. */
export interface WebServer {
  /** `http://127.0.0.1:8080` (the address it listens on). */
  readonly url: string;
  readonly port: number;
  /** Open, evicted, refused and timed-out connections so far. */
  connections(): ConnectionCounts;
  /** Stops accepting requests, ends open streams (which stops their turns) and closes. */
  close(): Promise<void>;
}

const urlHost = (host: string): string => (host.includes(':') ? `[${host}]` : host);

/**
 * Waits until `server` listens (chatfold serve and the gateway). A port that cannot be bound
 * is `E_INVALID_OPTIONS` naming the address.
 *
 * @returns The URL clients use and the port bound (the one the system chose for port 0).
 */
export async function whenListening(
  server: Server,
  host: string,
  port: number,
): Promise<{ readonly url: string; readonly port: number }> {
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new ChatfoldError(
          'E_INVALID_OPTIONS',
          `cannot listen on ${host}:${port} (${error.code ?? error.message}); choose another --port, or 0 for a free one`,
          { host, port },
          { cause: error },
        ),
      ),
    );
    server.once('listening', () => resolve(server.address() as AddressInfo));
  });
  return { url: `http://${urlHost(host)}:${address.port}`, port: address.port };
}

/**
 * Checks the bind address and token (WEB-8): loopback needs nothing; any other host refuses
 * to start without a token of at least {@link MIN_TOKEN_LENGTH} characters.
 */
export function checkBind(host: string, token: string | undefined): void {
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `the access token has ${token.length} characters; use at least ${MIN_TOKEN_LENGTH} (e.g. \`openssl rand -hex 16\`)`,
      { option: 'token' },
    );
  }
  if (!isLoopbackHost(host) && token === undefined) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `refusing to serve on ${host} without an access token: anyone who can reach it could read and write your chats. Pass --token or set CHATFOLD_TOKEN, or keep the default --host 127.0.0.1`,
      { option: 'host', host },
    );
  }
}

/**
 * Serves the web app over HTTP with `@hono/node-server` (CLI-4). Binds 127.0.0.1 unless told
 * otherwise; any other host needs a token (WEB-8).
 *
 * @param options the app's options plus host and port.
 * @returns the server's URL and `close()`.
 * @throws ChatfoldError `E_INVALID_OPTIONS` for a non-loopback host without a token, a short
 *   token, or a port that cannot be bound.
 */
export async function startWebServer(options: StartWebServerOptions): Promise<WebServer> {
  const { host = '127.0.0.1', port = 8080, limits, ...appOptions } = options;
  checkBind(host, appOptions.token);
  const serverOptions = httpServerOptions(limits);
  asWebStore(appOptions.store);
  // The allowed origins depend on the port, known once listening: the app is built then.
  let handle: ((request: Request, env: unknown) => Response | Promise<Response>) | undefined;
  const server = serve({
    fetch: (request, env) =>
      handle === undefined ? new Response('starting', { status: 503 }) : handle(request, env),
    hostname: host,
    port,
    serverOptions,
  }) as Server;
  const connections = limitConnections(server, limits);
  const listening = await whenListening(server, host, port);
  const origins = new Set([listening.url]);
  if (isLoopbackHost(host)) {
    for (const alias of ['127.0.0.1', 'localhost', '[::1]']) origins.add(`http://${alias}:${listening.port}`);
  }
  const { app } = createWebApp({ ...appOptions, allowedOrigins: [...origins] });
  handle = (request, env) => app.fetch(request, env);
  return {
    ...listening,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
