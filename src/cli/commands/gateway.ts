import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { runCompactionWorker } from '../../background/run-worker.ts';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { upstreamAuthFor } from '../../gateway/create-gateway.ts';
import {
  type GatewayConfig,
  parseGatewayConfig,
  type UpstreamKeyMode,
} from '../../gateway/gateway-config.ts';
import type { GatewayEvent } from '../../gateway/gateway-events.ts';
import { createGatewayMetrics } from '../../gateway/gateway-metrics.ts';
import { DEFAULT_GATEWAY_PORT, startGateway } from '../../gateway/start-gateway.ts';
import { upstreamSummarizer } from '../../gateway/upstream-summarizer.ts';
import { type PolicySpec, resolvePolicy } from '../../policy/presets.ts';
import { logQueueEvent } from '../background-sessions.ts';
import { connectionLimitsFrom, withConnectionLimitFlags } from '../connection-limit-options.ts';
import { openCompactionQueue } from '../open-queue.ts';
import { openStore } from '../open-store.ts';
import { parsePositiveInteger, print } from '../options.ts';

interface GatewayCliOptions {
  upstream?: string;
  upstreamFormat?: 'openai' | 'anthropic';
  upstreamKey?: UpstreamKeyMode;
  port: number;
  host: string;
  token?: string;
  window?: number;
  policy?: string;
  store?: string;
  config?: string;
  summarizerModel?: string;
  /** `--no-background` sets it false: summaries on the request path. */
  background?: boolean;
  maxBodyBytes?: number;
  metrics?: boolean;
  recall?: boolean;
  headersTimeout?: number;
  requestTimeout?: number;
  maxConnections?: number;
  maxConnectionsPerAddress?: number;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new InvalidArgumentError(`expected a port from 0 to 65535, received ${JSON.stringify(value)}`);
  return port;
}

/** `--policy`: a preset name, or a JSON policy (`{"preset":"chat-app","overrides":{…}}`). */
function parsePolicyOption(value: string): string {
  const spec: unknown = value.trim().startsWith('{') ? JSON.parse(value) : value;
  resolvePolicy(spec as PolicySpec, '--policy');
  return value;
}

/** One JSON log line per event: sizes, ids and timings only (no content, no keys). */
export function gatewayLogLine(event: GatewayEvent, now: Date = new Date()): string {
  return JSON.stringify({ time: now.toISOString(), source: 'chatfold-gateway', ...event });
}

/** The configuration: the file, then the command line over it. */
function configFrom(options: GatewayCliOptions): GatewayConfig {
  const file =
    options.config === undefined
      ? {}
      : parseGatewayConfig(readFileSync(options.config, 'utf8'), options.config);
  const policy =
    options.policy === undefined
      ? undefined
      : ((options.policy.trim().startsWith('{') ? JSON.parse(options.policy) : options.policy) as PolicySpec);
  return {
    ...file,
    ...(options.upstream === undefined ? {} : { upstream: options.upstream }),
    ...(options.upstreamFormat === undefined ? {} : { upstreamFormat: options.upstreamFormat }),
    ...(options.upstreamKey === undefined ? {} : { upstreamKey: options.upstreamKey }),
    ...(options.window === undefined ? {} : { window: options.window }),
    ...(policy === undefined ? {} : { policy }),
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    ...(options.recall === true ? { recall: true } : {}),
  };
}

/**
 * `chatfold gateway` (issue 21): an OpenAI- and Anthropic-compatible HTTP server in front of an
 * upstream model server, keeping every conversation inside the window. Runs until SIGINT or
 * SIGTERM, then lets requests in flight finish.
 */
export function registerGateway(program: Command): void {
  withConnectionLimitFlags(program.command('gateway'))
    .description('context management for any OpenAI or Anthropic client: point its base URL here')
    .option('--upstream <url>', 'base URL of the model server, e.g. http://127.0.0.1:11434/v1 (Ollama)')
    .addOption(
      new Option('--upstream-format <format>', 'wire format of the upstream').choices([
        'openai',
        'anthropic',
      ]),
    )
    .addOption(
      new Option(
        '--upstream-key <mode>',
        "key sent upstream: env ($CHATFOLD_UPSTREAM_API_KEY), passthrough (the client's own), none (default: env when set, else passthrough)",
      ).choices(['env', 'passthrough', 'none']),
    )
    .option('--port <port>', 'port to listen on; 0 picks a free one', parsePort, DEFAULT_GATEWAY_PORT)
    .option('--host <host>', 'interface to listen on; anything but loopback needs --token', '127.0.0.1')
    .option(
      '--token <token>',
      'access token clients must send (as their API key or x-chatfold-token; default: $CHATFOLD_TOKEN)',
    )
    .option('--window <tokens>', "the model's context window, overriding the registry", parsePositiveInteger)
    .option(
      '--policy <preset|json>',
      'compaction policy: a preset name (default, chat-app, …) or JSON',
      parsePolicyOption,
    )
    .option(
      '--store <location>',
      'SQLite file, JSONL directory or postgres:// URL (default: $CHATFOLD_STORE, else ~/.local/share/chatfold/chatfold.db)',
    )
    .option('--config <file>', 'YAML configuration: upstream, window and policy per model and route')
    .option(
      '--summarizer-model <name>',
      'model on the upstream that writes summaries (default: extractive summaries, no model call)',
    )
    .option('--no-background', 'write summaries on the request path instead of in background jobs')
    .option('--no-metrics', 'do not serve Prometheus metrics at /metrics')
    .option(
      '--recall',
      'offer the model the chatfold_recall tool and answer it from the full history (streamed or not)',
    )
    .option('--max-body-bytes <n>', 'largest request body accepted', parsePositiveInteger)
    .action(async (options: GatewayCliOptions) => {
      const config = configFrom(options);
      if (config.upstream === undefined) {
        throw new ChatfoldError(
          'E_INVALID_OPTIONS',
          'no upstream: pass --upstream <base URL> (e.g. http://127.0.0.1:11434/v1 for Ollama) or set upstream in --config',
          { option: 'upstream' },
        );
      }
      const token = options.token ?? (process.env.CHATFOLD_TOKEN?.trim() || undefined);
      const auth = upstreamAuthFor(config.upstreamKey);
      const log = (event: GatewayEvent) => process.stderr.write(`${gatewayLogLine(event)}\n`);
      const { store, description } = openStore(options.store);
      const queue = openCompactionQueue(options.store, { onEvent: logQueueEvent });
      const background = options.background !== false;
      const metrics = options.metrics === false ? undefined : createGatewayMetrics();
      let stopWorkers: (() => Promise<void>) | undefined;
      try {
        if (background) await queue.start();
        const server = await startGateway({
          upstream: config.upstream,
          config,
          upstreamAuth: auth,
          store,
          host: options.host,
          port: options.port,
          ...(token === undefined ? {} : { token }),
          ...(metrics === undefined ? {} : { metrics }),
          ...(background ? { background: { queue: queue.queue } } : {}),
          ...(options.summarizerModel === undefined
            ? {}
            : {
                summarizer: upstreamSummarizer({
                  upstream: config.upstream,
                  model: options.summarizerModel,
                  auth,
                }),
              }),
          limits: connectionLimitsFrom(options),
          onEvent: log,
        });
        if (background) {
          stopWorkers = await runCompactionWorker({
            chatfold: { session: (id) => server.gateway.runtime.session(id) },
            queue: queue.queue,
            concurrency: 2,
          });
        }
        print(`chatfold gateway listening on ${server.url}`);
        print(`  OpenAI clients:    base URL ${server.url}/v1`);
        print(`  Anthropic clients: base URL ${server.url}`);
        print(
          `  upstream ${config.upstream} (${config.upstreamFormat ?? 'openai'}; key: ${auth.type === 'key' ? 'from CHATFOLD_UPSTREAM_API_KEY' : auth.type === 'passthrough' ? "the client's own" : 'none'})`,
        );
        print(`  store ${description}`);
        print(
          `  summaries ${options.summarizerModel === undefined ? 'extractive (no model call)' : `by ${options.summarizerModel}`}, ${background ? `in the background (${queue.description})` : 'on the request path'}`,
        );
        if (token !== undefined)
          print('  clients must send the access token (as their API key or x-chatfold-token)');
        print('Ctrl-C stops');
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        print('stopping: letting requests in flight finish');
        await server.close();
        await stopWorkers?.();
      } finally {
        await queue.queue.close();
        await store.close();
      }
    });
}
