import { type Command, InvalidArgumentError } from 'commander';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { loadFakeScript } from '../../fake-provider/load-script.ts';
import { startFakeProvider } from '../../fake-provider/server.ts';
import { parsePositiveInteger, print } from '../options.ts';
import { plural } from '../plural.ts';

interface FakeProviderCliOptions {
  port: number;
  host: string;
  contextLimit?: number;
  latency?: number;
  script?: string;
  maxBodyBytes?: number;
}

/** Parses `--port`: 0 (any free port) to 65535. */
function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new InvalidArgumentError(`expected a port from 0 to 65535, received ${JSON.stringify(value)}`);
  return port;
}

/**
 * `chatfold fake-provider [--port N] [--context-limit N] [--script FILE]`: a fake OpenAI /
 * Anthropic / Gemini API for trying chatfold, its integrations and the SDKs offline, and for
 * driving front ends through scripted tool loops and slow answers. Runs until SIGINT/SIGTERM.
 */
export function registerFakeProvider(program: Command): void {
  program
    .command('fake-provider')
    .description(
      'run a fake OpenAI, Anthropic and Gemini API (real wire formats, overflow errors) until Ctrl-C',
    )
    .option('--port <port>', 'port to listen on; 0 picks a free one', parsePort, 0)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option(
      '--context-limit <tokens>',
      "refuse longer prompts with each provider's real context-overflow error",
      parsePositiveInteger,
    )
    .option('--latency <ms>', 'delay every answer by this many milliseconds', parsePositiveInteger)
    .option(
      '--script <file>',
      'JSON or YAML rules that script answers: text, tool calls, latency, failures (see the README)',
    )
    .option(
      '--max-body-bytes <bytes>',
      'refuse larger request bodies with 413 (default 32 MiB)',
      parsePositiveInteger,
    )
    .action(async (options: FakeProviderCliOptions) => {
      const script = options.script === undefined ? undefined : await loadFakeScript(options.script);
      const server = await startFakeProvider({
        port: options.port,
        host: options.host,
        ...(options.contextLimit === undefined ? {} : { contextLimit: options.contextLimit }),
        ...(options.latency === undefined ? {} : { latencyMs: options.latency }),
        ...(script === undefined ? {} : { script }),
        ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
      }).catch((error: unknown) => {
        throw new ChatfoldError(
          'E_INVALID_OPTIONS',
          `cannot listen on ${options.host}:${options.port} (${error instanceof Error ? error.message : String(error)}); choose another --port, or 0 for a free one`,
          { host: options.host, port: options.port },
          { cause: error },
        );
      });
      const { url } = server;
      print(`chatfold fake provider listening on ${url}`);
      print(`  OpenAI     baseURL ${url}/v1  (POST /chat/completions, GET /models)`);
      print(`  Anthropic  baseURL ${url}  (POST /v1/messages, /v1/messages/count_tokens)`);
      print(
        `  Gemini     httpOptions.baseUrl ${url}  (models/{model}:generateContent, :streamGenerateContent, :countTokens)`,
      );
      print(`  llama.cpp  ${url}  (POST /tokenize, /apply-template: createLlamaCppTokenCounter)`);
      print(`  vLLM       ${url}  (POST /tokenize: createVllmTokenCounter)`);
      if (script !== undefined) {
        print(`script: ${plural(script.rules.length, 'rule')} from ${options.script}`);
      }
      print(
        `context limit: ${options.contextLimit === undefined ? 'none' : `${options.contextLimit.toLocaleString('en-US')} tokens`}; any API key is accepted; Ctrl-C stops`,
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
    });
}
