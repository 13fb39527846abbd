/**
 * Who may use a gateway (issue 21): on loopback without a token, only requests addressed to a
 * loopback name (a DNS-rebinding page is refused); with a token, every request must carry it —
 * as `x-chatfold-token`, or as the API key the client already sends (`Authorization: Bearer`,
 * `x-api-key`), which is then not forwarded upstream.
 */
import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { isLoopbackHost } from '../web/server/security.ts';
import { GatewayError } from './wire-errors.ts';

/** Hono variables the gateway's middleware sets. */
export interface GatewayVariables {
  /** The client's headers minus the gateway token, as they may be forwarded. */
  incoming: Headers;
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function hostName(header: string): string {
  if (header.startsWith('[')) return header.slice(1, header.indexOf(']'));
  const colon = header.lastIndexOf(':');
  return colon < 0 ? header : header.slice(0, colon);
}

/**
 * The gateway's access check.
 *
 * @param token The access token; undefined: loopback Host only.
 */
export function gatewayAuth(token: string | undefined): MiddlewareHandler<{ Variables: GatewayVariables }> {
  return async (context, next) => {
    const incoming = new Headers(context.req.raw.headers);
    if (token === undefined) {
      const host = context.req.header('host') ?? new URL(context.req.url).host;
      if (!isLoopbackHost(hostName(host)) || !isLoopbackHost(new URL(context.req.url).hostname)) {
        throw new GatewayError(
          403,
          'E_FORBIDDEN_HOST',
          `this gateway answers only requests to 127.0.0.1 or localhost, received Host ${JSON.stringify(host)}; start it with --token to serve other hosts`,
        );
      }
    } else {
      const bearer = /^Bearer\s+(.+)$/i.exec(context.req.header('authorization') ?? '')?.[1]?.trim();
      const candidates: [string, string | undefined][] = [
        ['x-chatfold-token', context.req.header('x-chatfold-token')?.trim()],
        ['authorization', bearer],
        ['x-api-key', context.req.header('x-api-key')?.trim()],
      ];
      const found = candidates.find(([, value]) => value !== undefined && sameSecret(value, token));
      if (found === undefined) {
        throw new GatewayError(
          401,
          'E_UNAUTHORIZED',
          'this gateway needs its access token: send it as the API key (Authorization: Bearer <token> or x-api-key) or as x-chatfold-token',
        );
      }
      incoming.delete(found[0]);
    }
    context.set('incoming', incoming);
    await next();
  };
}
