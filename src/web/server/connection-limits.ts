import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { ChatfoldError } from '../../errors/chatfold-error.ts';

/**
 * Connection limits of chatfold's HTTP servers (issue 24): a server keeps answering while
 * clients hold connections open without finishing a request. Milliseconds and counts.
 */
export const HTTP_LIMITS = Object.freeze({
  /**
   * A connection must complete its request headers within this time: from the connection's
   * start for its first request (Node itself times only a request that has begun), from the
   * first byte for a later one. Then it is closed (408 when Node can still answer).
   */
  headersTimeoutMs: 10_000,
  /** The whole request (headers and body) must arrive within this time; responses may stream longer. */
  requestTimeoutMs: 30_000,
  /** An idle keep-alive connection is closed after this time. */
  keepAliveTimeoutMs: 5_000,
  /** Requests served on one connection before it is closed. */
  maxRequestsPerSocket: 1_000,
  /** Open connections of the server. */
  maxConnections: 512,
  /** Open connections from one client address. */
  maxConnectionsPerAddress: 256,
});

/** Limits of an HTTP server; every field defaults to {@link HTTP_LIMITS}. */
export type HttpLimits = { readonly [K in keyof typeof HTTP_LIMITS]?: number };

/** What {@link limitConnections} tracks, for logs and tests. */
export interface ConnectionCounts {
  /** Open connections. */
  readonly open: number;
  /** Connections closed to make room (idle ones, oldest first) or refused (all busy). */
  readonly evicted: number;
  readonly refused: number;
  /** Connections closed for not completing their first request's headers in time. */
  readonly timedOut: number;
}

/** The limits with defaults filled in, each checked to be a positive integer. */
export function resolveHttpLimits(limits: HttpLimits = {}): Required<HttpLimits> {
  const resolved = { ...HTTP_LIMITS, ...limits };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new ChatfoldError(
        'E_INVALID_OPTIONS',
        `limits.${name}: expected a positive integer, received ${JSON.stringify(value)}`,
        { option: `limits.${name}` },
      );
    }
  }
  if (resolved.headersTimeoutMs > resolved.requestTimeoutMs) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `limits.headersTimeoutMs (${resolved.headersTimeoutMs}) must not exceed limits.requestTimeoutMs (${resolved.requestTimeoutMs})`,
      { option: 'limits.headersTimeoutMs' },
    );
  }
  return resolved;
}

/**
 * Options for `http.createServer` that apply the timeouts: Node checks them every
 * `connectionsCheckingInterval` (30 s by default, which would let a short timeout run 30 s).
 */
export function httpServerOptions(limits: HttpLimits = {}): ServerOptions {
  const resolved = resolveHttpLimits(limits);
  return {
    headersTimeout: resolved.headersTimeoutMs,
    requestTimeout: resolved.requestTimeoutMs,
    keepAliveTimeout: resolved.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(resolved.headersTimeoutMs / 4))),
  };
}

interface Tracked {
  readonly address: string;
  /** Requests in flight (headers received, response not finished): a streaming answer is busy. */
  busy: number;
  hasRequested: boolean;
}

/** `::ffff:127.0.0.1` and `127.0.0.1` are one client. */
const clientAddress = (socket: Socket): string => (socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');

/**
 * Caps a server's connections, per server and per client address, and closes a connection that
 * has not sent its first request's headers within `headersTimeoutMs` (issue 24). At a cap, the
 * oldest idle connection (no request in flight: still sending headers, or kept alive between
 * requests) is closed to make room — of the same address for the per-address cap — so a flood of
 * idle sockets cannot lock out a real request; only when every connection is busy is the new one
 * refused. Also sets the keep-alive bounds on the server.
 *
 * @param server A Node HTTP server, before or after `listen` (chatfold serve, a gateway).
 * @param limits Overrides of {@link HTTP_LIMITS}.
 * @returns Live counts.
 * @throws ChatfoldError `E_INVALID_OPTIONS` for a limit that is not a positive integer.
 * @example
 * const limits = { maxConnectionsPerAddress: 64 };
 * const server = http.createServer(httpServerOptions(limits), handler);
 * const counts = limitConnections(server, limits);
 * server.listen(8080, '127.0.0.1');
 */
export function limitConnections(server: Server, limits: HttpLimits = {}): () => ConnectionCounts {
  const resolved = resolveHttpLimits(limits);
  server.keepAliveTimeout = resolved.keepAliveTimeoutMs;
  server.maxRequestsPerSocket = resolved.maxRequestsPerSocket;
  server.headersTimeout = resolved.headersTimeoutMs;
  server.requestTimeout = resolved.requestTimeoutMs;
  // Insertion order is age: the first idle entry found is the oldest.
  const open = new Map<Socket, Tracked>();
  const perAddress = new Map<string, number>();
  let evicted = 0;
  let refused = 0;
  let timedOut = 0;

  const evictOldestIdle = (address: string | undefined): boolean => {
    for (const [socket, tracked] of open) {
      if (tracked.busy > 0 || (address !== undefined && tracked.address !== address)) continue;
      evicted++;
      forget(socket);
      socket.destroy();
      return true;
    }
    return false;
  };

  const forget = (socket: Socket): void => {
    const tracked = open.get(socket);
    if (tracked === undefined) return;
    open.delete(socket);
    const left = (perAddress.get(tracked.address) ?? 1) - 1;
    if (left <= 0) perAddress.delete(tracked.address);
    else perAddress.set(tracked.address, left);
  };

  server.on('connection', (socket: Socket) => {
    const address = clientAddress(socket);
    const fromAddress = perAddress.get(address) ?? 0;
    const hasRoom =
      (fromAddress < resolved.maxConnectionsPerAddress || evictOldestIdle(address)) &&
      (open.size < resolved.maxConnections || evictOldestIdle(undefined));
    if (!hasRoom) {
      refused++;
      socket.destroy();
      return;
    }
    const tracked: Tracked = { address, busy: 0, hasRequested: false };
    open.set(socket, tracked);
    perAddress.set(address, (perAddress.get(address) ?? 0) + 1);
    // Node times a request's headers only once its first byte arrives: a socket that sends
    // nothing would stay open for ever.
    const firstRequest = setTimeout(() => {
      if (tracked.hasRequested) return;
      timedOut++;
      socket.destroy();
    }, resolved.headersTimeoutMs);
    firstRequest.unref();
    socket.once('close', () => {
      clearTimeout(firstRequest);
      forget(socket);
    });
  });

  server.on('request', (request, response) => {
    const tracked = open.get(request.socket);
    if (tracked === undefined) return;
    tracked.hasRequested = true;
    tracked.busy++;
    response.once('close', () => {
      tracked.busy--;
    });
  });

  return () => ({ open: open.size, evicted, refused, timedOut });
}
