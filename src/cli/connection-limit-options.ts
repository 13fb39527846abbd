import type { Command } from 'commander';
import { HTTP_LIMITS, type HttpLimits } from '../web/server/connection-limits.ts';
import { parsePositiveInteger } from './options.ts';

/** The connection-limit flags `chatfold serve` and `chatfold gateway` share. */
export interface ConnectionLimitFlags {
  readonly headersTimeout?: number;
  readonly requestTimeout?: number;
  readonly maxConnections?: number;
  readonly maxConnectionsPerAddress?: number;
}

/**
 * Adds `--headers-timeout`, `--request-timeout`, `--max-connections` and
 * `--max-connections-per-address` to a server command, with the defaults in their help.
 */
export function withConnectionLimitFlags(command: Command): Command {
  return command
    .option(
      '--headers-timeout <ms>',
      `close a connection that has not sent its request headers within this time (default ${HTTP_LIMITS.headersTimeoutMs})`,
      parsePositiveInteger,
    )
    .option(
      '--request-timeout <ms>',
      `close a connection whose whole request has not arrived within this time (default ${HTTP_LIMITS.requestTimeoutMs})`,
      parsePositiveInteger,
    )
    .option(
      '--max-connections <n>',
      `open connections at most; idle ones are closed first to make room (default ${HTTP_LIMITS.maxConnections})`,
      parsePositiveInteger,
    )
    .option(
      '--max-connections-per-address <n>',
      `open connections from one client address at most (default ${HTTP_LIMITS.maxConnectionsPerAddress}; raise it behind a reverse proxy)`,
      parsePositiveInteger,
    );
}

/** The limits the flags set (the ones left out keep their defaults). */
export function connectionLimitsFrom(flags: ConnectionLimitFlags): Partial<HttpLimits> {
  return {
    ...(flags.headersTimeout === undefined ? {} : { headersTimeoutMs: flags.headersTimeout }),
    ...(flags.requestTimeout === undefined ? {} : { requestTimeoutMs: flags.requestTimeout }),
    ...(flags.maxConnections === undefined ? {} : { maxConnections: flags.maxConnections }),
    ...(flags.maxConnectionsPerAddress === undefined
      ? {}
      : { maxConnectionsPerAddress: flags.maxConnectionsPerAddress }),
  };
}
