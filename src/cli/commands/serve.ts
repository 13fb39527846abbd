import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { loadAgentFile } from '../../agent/agent-file/find-agents.ts';
import { createAgent } from '../../agent/create-agent.ts';
import { PROVIDER_KEYS, parseModelSpec } from '../../agent/language-model.ts';
import type { AgentModelSpec, AgentOptions } from '../../agent/types.ts';
import { openWorkspaceRoot } from '../../agent/workspace/workspace-root.ts';
import { workspaceTools } from '../../agent/workspace/workspace-tools.ts';
import { runCompactionWorker } from '../../background/run-worker.ts';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { startFakeProvider } from '../../fake-provider/server.ts';
import { createRedactor, secretsFromEnvironment } from '../../web/server/redact.ts';
import { startWebServer } from '../../web/server/start-web-server.ts';
import { findClientDir } from '../../web/server/static-client.ts';
import { backgroundSessions, logQueueEvent } from '../background-sessions.ts';
import { connectionLimitsFrom, withConnectionLimitFlags } from '../connection-limit-options.ts';
import { openCompactionQueue } from '../open-queue.ts';
import { openStore } from '../open-store.ts';
import { parsePositiveInteger, print } from '../options.ts';

/** The options `chatfold serve` and `chatfold worker` share: where sessions live and which agent runs. */
export interface AgentProcessCliOptions {
  store?: string;
  agent?: string;
  model?: string;
  baseUrl?: string;
  window?: number;
  workspace: string;
}

interface ServeCliOptions extends AgentProcessCliOptions {
  port: number;
  host: string;
  token?: string;
  fakeProvider?: boolean;
  /** `--no-workers` sets it false: no compaction workers in this process (issue 13). */
  workers?: boolean;
  /** `--summary-timeout`: seconds a summary asked for by hand may take (issue 23). */
  summaryTimeout?: number;
  /** Connection limits (issue 24); unset ones keep `HTTP_LIMITS`. */
  headersTimeout?: number;
  requestTimeout?: number;
  maxConnections?: number;
  maxConnectionsPerAddress?: number;
}

/** Model a keyless try uses: answers come from the fake provider; the window is small so compaction shows early. */
export const FAKE_MODEL: Omit<AgentModelSpec, 'baseURL'> = {
  provider: 'openai-compatible',
  name: 'chatfold-fake',
  maxInputTokens: 8192,
  maxOutputTokens: 1024,
};

/** Summaries a `chatfold serve` writes at once in its own workers (issue 13). */
const EMBEDDED_WORKERS = 2;

/** Models picked from the first API key found when neither `--agent` nor `--model` is given. */
const MODEL_BY_KEY: readonly { readonly provider: AgentModelSpec['provider']; readonly name: string }[] = [
  { provider: 'openai', name: 'gpt-4o-mini' },
  { provider: 'anthropic', name: 'claude-haiku-4-5' },
  { provider: 'google', name: 'gemini-2.5-flash' },
];

/** An object without the keys set to `undefined` (YAML leaves optional keys out; zod types them `| undefined`). */
function definedOnly<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

/** Parses `--port`: 0 (any free port) to 65535. */
function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new InvalidArgumentError(`expected a port from 0 to 65535, received ${JSON.stringify(value)}`);
  return port;
}

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** The agent the web app runs: from `--agent`, else `--model`, else the fake provider or the first key set. */
export async function agentDefinition(
  options: Omit<AgentProcessCliOptions, 'store'>,
  fakeUrl: string | undefined,
): Promise<Omit<AgentOptions, 'store' | 'session'>> {
  const window = options.window === undefined ? {} : { maxInputTokens: options.window };
  if (options.agent !== undefined) {
    const loaded = await loadAgentFile(options.agent);
    const { file } = loaded;
    const tools =
      file.tools === undefined || file.tools.length === 0
        ? undefined
        : workspaceTools(await openWorkspaceRoot(options.workspace), { names: file.tools });
    // An agent file may leave the model to the command line (seed 004's files have none).
    const fileModel = file.model ?? (options.model === undefined ? undefined : parseModelSpec(options.model));
    if (fileModel === undefined) {
      throw new ChatfoldError(
        'E_INVALID_OPTIONS',
        `no model: ${loaded.path} has no model section; add one (model: { provider, name }) or pass --model provider:name`,
        { path: loaded.path },
      );
    }
    return {
      name: file.name,
      model: definedOnly({
        ...fileModel,
        ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
        ...window,
      }),
      ...(loaded.instructions === undefined ? {} : { instructions: loaded.instructions }),
      ...(tools === undefined ? {} : { tools }),
      ...(file.history === undefined ? {} : { history: file.history }),
      ...(file.context === undefined ? {} : { context: definedOnly(file.context) }),
      ...(file.summarizer === undefined ? {} : { summarizer: definedOnly(file.summarizer) }),
      ...(file.maxSteps === undefined ? {} : { maxSteps: file.maxSteps }),
    };
  }
  if (fakeUrl !== undefined) {
    return {
      name: 'keyless-try',
      // Any key works with the fake provider; it is not a secret and never leaves the server.
      model: { ...FAKE_MODEL, baseURL: `${fakeUrl}/v1`, apiKey: 'fake-provider', ...window },
      instructions: 'You are a helpful assistant.',
    };
  }
  if (options.model !== undefined) {
    return {
      name: 'assistant',
      model: {
        ...parseModelSpec(options.model),
        ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
        ...window,
      },
      instructions: 'You are a helpful assistant.',
    };
  }
  const byKey = MODEL_BY_KEY.find((model) =>
    PROVIDER_KEYS[model.provider].some((name) => (process.env[name]?.trim() ?? '') !== ''),
  );
  if (byKey === undefined) {
    throw new ChatfoldError(
      'E_MISSING_API_KEY',
      'no model to chat with: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY, pass --model provider:name (--base-url for a local server) or --agent FILE, or try it without a key: chatfold serve --fake-provider',
      { variables: Object.values(PROVIDER_KEYS).flat() },
    );
  }
  return { name: 'assistant', model: { ...byKey, ...window }, instructions: 'You are a helpful assistant.' };
}

/**
 * `chatfold serve` (CLI-4): the web app on 127.0.0.1 (WEB-1..8) over a store (SQLite in the
 * user's data folder by default, JSONL or PostgreSQL by `--store`), running the agent of
 * `--agent` (or `--model`, or the fake provider for a keyless try). Runs until Ctrl-C.
 */
export function registerServe(program: Command): void {
  withConnectionLimitFlags(program.command('serve'))
    .description('run the web chat app (gauge, summaries, full history) until Ctrl-C')
    .option('--port <port>', 'port to listen on; 0 picks a free one', parsePort, 8080)
    .option('--host <host>', 'interface to listen on; anything but loopback needs --token', '127.0.0.1')
    .option(
      '--store <location>',
      'SQLite file, JSONL directory or postgres:// URL (default: $CHATFOLD_STORE, else ~/.local/share/chatfold/chatfold.db)',
    )
    .option(
      '--agent <name|file>',
      'agent file (YAML) or the name of one in .chatfold/agents or ~/.config/chatfold/agents',
    )
    .option('--model <provider:name>', 'model when no --agent is given, e.g. openai:gpt-4o-mini')
    .option('--base-url <url>', 'base URL of an OpenAI-compatible server (Ollama, llama.cpp, vLLM)')
    .option('--window <tokens>', "the model's context window, overriding the registry", parsePositiveInteger)
    .option('--workspace <dir>', "root of the agent's workspace tools", '.')
    .option('--token <token>', 'access token every API call must carry (default: $CHATFOLD_TOKEN)')
    .option(
      '--fake-provider',
      "keyless try: answers from chatfold's built-in fake provider, labelled as such",
    )
    .option(
      '--summary-timeout <seconds>',
      'seconds a summary asked for in the web app may take before it fails with Retry (default 120)',
      parsePositiveInteger,
    )
    .option(
      '--no-workers',
      'write no background summaries in this process (run chatfold worker against the same postgres:// store)',
    )
    .action(async (options: ServeCliOptions) => {
      const token = options.token ?? (process.env.CHATFOLD_TOKEN?.trim() || undefined);
      const fake = options.fakeProvider === true ? await startFakeProvider({ port: 0 }) : undefined;
      const { store, description } = openStore(options.store);
      // Issue 13: summaries are written off the request path, by workers in this process unless
      // --no-workers (then by `chatfold worker` processes sharing the PostgreSQL queue).
      const queue = openCompactionQueue(options.store, { onEvent: logQueueEvent });
      const workers = options.workers !== false;
      const background = workers || queue.isShared;
      let stopWorkers: (() => Promise<void>) | undefined;
      const redact = createRedactor([...secretsFromEnvironment(process.env), token]);
      try {
        const defined = await agentDefinition(options, fake?.url);
        const agent = background ? { ...defined, background: { queue: queue.queue } } : defined;
        const spec = agent.model as AgentModelSpec;
        if (background) await queue.start();
        const clientDir = findClientDir();
        const server = await startWebServer({
          host: options.host,
          port: options.port,
          limits: connectionLimitsFrom(options),
          store,
          agent,
          createAgent,
          modelId: spec.name,
          modelLabel: `${spec.provider}:${spec.name}`,
          ...(token === undefined ? {} : { token }),
          clientDir,
          redact,
          fakeProvider: fake !== undefined,
          version: pkg.version,
          log: (line) => process.stderr.write(`${line}\n`),
          ...(options.summaryTimeout === undefined
            ? {}
            : { summaryTimeoutMs: options.summaryTimeout * 1000 }),
        });
        if (workers) {
          stopWorkers = await runCompactionWorker({
            chatfold: backgroundSessions({ store, agent: defined, modelId: spec.name, queue: queue.queue }),
            queue: queue.queue,
            concurrency: EMBEDDED_WORKERS,
          });
        }
        print(`chatfold web app listening on ${server.url}/`);
        if (token !== undefined) print(`  open ${server.url}/#token=<your token> (every API call needs it)`);
        print(
          `  agent ${agent.name ?? 'agent'} · ${spec.provider}:${spec.name}${fake === undefined ? '' : ' (fake provider: keyless try, answers are echoes)'}`,
        );
        print(`  store ${description}`);
        print(
          background
            ? `  summaries in the background: ${queue.description}, ${workers ? 'workers in this process' : 'by chatfold worker processes'}`
            : '  summaries inline (--no-workers without a shared PostgreSQL queue)',
        );
        if (clientDir === undefined)
          print('  the web client is not built: run `npm run build` (the API works without it)');
        print('Ctrl-C stops');
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        await stopWorkers?.();
        await server.close();
      } finally {
        await queue.queue.close();
        await store.close();
        await fake?.close();
      }
    });
}
