import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { HttpError } from './http-error.ts';

/** True for names and addresses that only this machine can reach (WEB-8: the default bind). */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  if (isIP(name) === 6) return name === '::1' || name === '0:0:0:0:0:0:0:1';
  return false;
}

/** The host name of a `Host` header value (`127.0.0.1:8080` → `127.0.0.1`, `[::1]:80` → `::1`). */
function hostName(header: string): string {
  if (header.startsWith('[')) return header.slice(1, header.indexOf(']'));
  const colon = header.lastIndexOf(':');
  return colon < 0 ? header : header.slice(0, colon);
}

/**
 * Without a token, answers only requests addressed to a loopback name: a page on another site
 * that rebinds its DNS name to 127.0.0.1 sends its own `Host` and is refused (WEB-8).
 */
export function loopbackHostOnly(): MiddlewareHandler {
  return async (context, next) => {
    // The Host header when there is one (a rebinding page sends its own), and the URL the
    // server derived (in-process requests have no Host header).
    const header = context.req.header('host');
    const host = header ?? new URL(context.req.url).host;
    if (!isLoopbackHost(hostName(host)) || !isLoopbackHost(new URL(context.req.url).hostname)) {
      throw new HttpError(
        403,
        'E_FORBIDDEN_HOST',
        `this server answers only requests to 127.0.0.1 or localhost, received Host ${JSON.stringify(host)}; open it through a loopback address, or start it with --token to serve other hosts`,
      );
    }
    await next();
  };
}

/** Compares two strings in constant time (a token check must not leak its prefix by timing). */
function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Every API call must carry `Authorization: Bearer <token>` (WEB-8). The page keeps the token
 * from the URL fragment (`#token=…`, never sent to servers or logged) in session storage.
 */
export function requireToken(token: string): MiddlewareHandler {
  return async (context, next) => {
    const header = context.req.header('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (match?.[1] === undefined || !sameSecret(match[1].trim(), token)) {
      context.header('WWW-Authenticate', 'Bearer realm="chatfold"');
      throw new HttpError(
        401,
        'E_UNAUTHORIZED',
        'this server needs its access token: open the URL it printed (with #token=…) or send Authorization: Bearer <token>',
      );
    }
    await next();
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * State-changing requests must come from the app's own pages (WEB-8, CSRF): a browser sends
 * `Origin` with every POST/PUT/PATCH/DELETE; it must be one of `allowed`, and a cross-site
 * `Sec-Fetch-Site` is refused. Clients without a browser (curl, scripts) send neither.
 *
 * @param allowed origins such as `http://127.0.0.1:8080`; a function for ones known per request.
 */
export function sameOriginWrites(
  allowed: (requestHost: string | undefined) => ReadonlySet<string>,
): MiddlewareHandler {
  return async (context, next) => {
    if (!SAFE_METHODS.has(context.req.method)) {
      const origin = context.req.header('origin');
      const site = context.req.header('sec-fetch-site');
      if (
        site === 'cross-site' ||
        (origin !== undefined && !allowed(context.req.header('host')).has(origin))
      ) {
        throw new HttpError(
          403,
          'E_FORBIDDEN_ORIGIN',
          `cross-origin ${context.req.method} refused (Origin ${JSON.stringify(origin ?? '')}); use the app's own page`,
        );
      }
    }
    await next();
  };
}

/**
 * Content-Security-Policy of every response (WEB-8): scripts and styles only from this server
 * (no inline script, no eval), no plugins, no framing, requests only to this origin.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** Security headers on every response. */
export function securityHeaders(): MiddlewareHandler {
  return async (context, next) => {
    await next();
    context.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    context.header('X-Content-Type-Options', 'nosniff');
    context.header('Referrer-Policy', 'no-referrer');
    context.header('X-Frame-Options', 'DENY');
    context.header('Cross-Origin-Opener-Policy', 'same-origin');
    context.header('Cross-Origin-Resource-Policy', 'same-origin');
    context.header('Permissions-Policy', 'camera=(), microphone=(), geolocation=()');
  };
}
