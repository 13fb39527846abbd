import { stat } from 'node:fs/promises';
import type { LoadedAgentFile } from '../../agent/agent-file/find-agents.ts';
import { loadAgentFile } from '../../agent/agent-file/find-agents.ts';
import { createAgent } from '../../agent/create-agent.ts';
import { parseModelSpec } from '../../agent/language-model.ts';
import type { AgentWarning } from '../../agent/model-warnings.ts';
import { isDeletedSession } from '../../agent/session-metadata.ts';
import type { Agent, AgentContextOptions, AgentModelSpec, AgentTool } from '../../agent/types.ts';
import { openWorkspaceRoot } from '../../agent/workspace/workspace-root.ts';
import { WORKSPACE_TOOL_NAMES, workspaceTools } from '../../agent/workspace/workspace-tools.ts';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { type DiscoveredWindow, discoverWindow } from '../discover-window.ts';
import { type OpenedStore, openStore } from '../open-store.ts';
import { plural } from '../plural.ts';
import { createEventRenderer } from './render-events.ts';
import { runRepl } from './repl.ts';
import { processTerminal, type Terminal } from './terminal.ts';

/** Options of `chatfold chat` (CLI-1). */
export interface ChatCliOptions {
  readonly session?: string;
  readonly workspace?: string;
  readonly store?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly print?: string;
  /** `--window N`: the model's context window in tokens (over the agent file's). */
  readonly window?: string;
  /** `--new`: start a new session (with `--session ID`, under that id). */
  readonly new?: boolean;
  /** `--timeout SECONDS`: how long a model call may send nothing before it is cancelled. */
  readonly timeout?: string;
  /** `--recall`: offer the model `chatfold_recall` (also the agent file's `recall: true`). */
  readonly recall?: boolean;
}

/** Seconds a model call may send nothing before `chatfold chat` cancels it (`--timeout`). */
export const DEFAULT_REQUEST_TIMEOUT_S = 300;

/** `--timeout 90` as milliseconds. */
function timeoutOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_REQUEST_TIMEOUT_S * 1000;
  const seconds = Number(value);
  if (!(Number.isFinite(seconds) && seconds > 0)) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `--timeout ${JSON.stringify(value)}: expected seconds a model call may send nothing, e.g. --timeout 600`,
      { timeout: value },
    );
  }
  return Math.round(seconds * 1000);
}

/**
 * `--session ID` resumes an existing session only: a mistyped id would otherwise open an empty
 * one. `--new` starts one (under that id when given, which must be free).
 */
async function checkSessionOption(options: ChatCliOptions, store: OpenedStore): Promise<void> {
  if (options.session === undefined) return;
  const existing = await store.store.getSession(options.session);
  if (existing !== undefined && isDeletedSession(existing)) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `session ${JSON.stringify(options.session)} was deleted from ${store.description}; start another (drop --session) or pick one from /sessions`,
      { session: options.session },
    );
  }
  if (existing === undefined && options.new !== true) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `no session ${JSON.stringify(options.session)} in ${store.description}; add --new to start it, or run /sessions in a chat to list them`,
      { session: options.session },
    );
  }
  if (existing !== undefined && options.new === true) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `session ${JSON.stringify(options.session)} already exists in ${store.description} (${plural(existing.messageCount, 'message')}); drop --new to resume it`,
      { session: options.session },
    );
  }
}

/** Instructions of the built-in agent (no agent file named). */
export const DEFAULT_AGENT_INSTRUCTIONS =
  'You are a helpful assistant with tools to list, search, read, write and edit files in the user’s workspace. ' +
  'Paths are relative to the workspace root. Read a file before you edit it, and make exact, minimal edits.';

/** The object without its undefined fields (zod output → exactOptionalPropertyTypes options). */
function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** How long the start-up check waits for a base URL to answer. */
const REACHABLE_TIMEOUT_MS = 5000;

/** The model: the agent file's, with `--model` and `--base-url` (or `CHATFOLD_MODEL`) over it. */
function modelSpecOf(loaded: LoadedAgentFile | undefined, options: ChatCliOptions): AgentModelSpec {
  const fromFile = loaded?.file.model;
  const override = options.model ?? (fromFile === undefined ? process.env.CHATFOLD_MODEL : undefined);
  const base: AgentModelSpec | undefined =
    override !== undefined
      ? { ...definedOnly(fromFile ?? {}), ...parseModelSpec(override) }
      : fromFile === undefined
        ? undefined
        : (definedOnly(fromFile) as AgentModelSpec);
  if (base === undefined) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      loaded === undefined
        ? 'no model: pass --model provider:name (e.g. openai:gpt-4o, openai-compatible:qwen2.5:32b with --base-url), set CHATFOLD_MODEL, or name an agent file'
        : `no model: ${loaded.path} has no model section; add one (model: { provider, name }) or pass --model provider:name (e.g. openai-compatible:qwen2.5:32b with --base-url)`,
      {},
    );
  }
  const window = windowOption(options.window);
  return {
    ...base,
    ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
    ...(window === undefined ? {} : { maxInputTokens: window }),
  };
}

/** `--window 32000` (also `32k`) as a number of tokens. */
function windowOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(k)?$/i.exec(value.trim().replaceAll(',', '').replaceAll('_', ''));
  const tokens = match === null ? Number.NaN : Number(match[1]) * (match[2] === undefined ? 1 : 1000);
  if (!(Number.isInteger(tokens) && tokens > 0)) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `--window ${JSON.stringify(value)}: expected the model's context window in tokens, e.g. --window 32768 or --window 32k`,
      { window: value },
    );
  }
  return tokens;
}

/** `--workspace DIR` must be a folder that exists (the file tools work inside it). */
async function checkWorkspaceOption(workspace: string): Promise<void> {
  const found = await stat(workspace).catch(() => undefined);
  if (found?.isDirectory() !== true) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `--workspace ${workspace}: ${found === undefined ? 'no such folder' : 'not a folder'}; the file tools work inside an existing folder`,
      { option: 'workspace' },
    );
  }
}

/** How the terminal says what the agent assumed (once, before the first turn). */
function warningLine(warning: AgentWarning): string {
  return `! unknown model "${warning.model}": assuming a context window of ${warning.window.toLocaleString('en-US')} tokens. Set the real one with model.maxInputTokens in the agent file, or --window on the command line.`;
}

/** Fails with one line when a base URL does not answer at all (CLI-1: "what to start"). */
async function checkReachable(baseURL: string): Promise<void> {
  try {
    await fetch(`${baseURL.replace(/\/+$/, '')}/models`, {
      signal: AbortSignal.timeout(REACHABLE_TIMEOUT_MS),
    });
  } catch (cause) {
    const reason =
      cause instanceof Error && cause.name === 'TimeoutError'
        ? `no answer in ${REACHABLE_TIMEOUT_MS / 1000} s`
        : ((cause as { cause?: { code?: string } }).cause?.code ??
          (cause as { cause?: { message?: string } }).cause?.message ??
          (cause instanceof Error ? cause.message : String(cause)));
    throw new ChatfoldError(
      'E_PROVIDER',
      `cannot reach ${baseURL} (${reason}); start the model server (ollama serve, llama-server, vllm serve, LM Studio) or fix --base-url`,
      { baseURL },
      { cause },
    );
  }
}

/** The command that resumes this session, with the flags that chose agent, store and model. */
function resumeCommandOf(agentRef: string | undefined, sessionId: string, options: ChatCliOptions): string {
  const args = ['chatfold', 'chat'];
  if (agentRef !== undefined) args.push(agentRef);
  args.push('--session', sessionId);
  if (options.workspace !== undefined) args.push('--workspace', options.workspace);
  if (options.store !== undefined) args.push('--store', options.store);
  if (options.model !== undefined) args.push('--model', options.model);
  if (options.window !== undefined) args.push('--window', options.window);
  if (options.timeout !== undefined) args.push('--timeout', options.timeout);
  if (options.baseUrl !== undefined) args.push('--base-url', options.baseUrl);
  return args.map(shellWord).join(' ');
}

/** A word as a POSIX shell reads it back: bare when safe, else single-quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

async function openAgent(
  agentRef: string | undefined,
  options: ChatCliOptions,
  store: OpenedStore,
): Promise<{ agent: Agent; discovered: DiscoveredWindow | undefined }> {
  const loaded = agentRef === undefined ? undefined : await loadAgentFile(agentRef);
  let model = modelSpecOf(loaded, options);
  if (options.workspace !== undefined) await checkWorkspaceOption(options.workspace);
  const workspace = await openWorkspaceRoot(options.workspace ?? process.cwd());
  const toolNames = loaded === undefined ? WORKSPACE_TOOL_NAMES : (loaded.file.tools ?? []);
  const tools = workspaceTools(workspace, { names: toolNames }) as Record<string, AgentTool<unknown>>;
  if (model.baseURL !== undefined) await checkReachable(model.baseURL);
  // A local server may say how large its window is: better than assuming one.
  let discovered: DiscoveredWindow | undefined;
  if (
    model.provider === 'openai-compatible' &&
    model.baseURL !== undefined &&
    model.maxInputTokens === undefined
  ) {
    discovered = await discoverWindow(model.baseURL, model.name);
    if (discovered !== undefined) model = { ...model, maxInputTokens: discovered.tokens };
  }
  // --base-url reaches the summarizer too when it is served by the same provider (a proxy, a local server).
  const fileSummarizer = loaded?.file.summarizer;
  const summarizer =
    fileSummarizer === undefined
      ? undefined
      : options.baseUrl !== undefined &&
          fileSummarizer.baseURL === undefined &&
          fileSummarizer.provider === model.provider
        ? { ...fileSummarizer, baseURL: options.baseUrl }
        : fileSummarizer;
  const agent = await createAgent({
    model,
    name: loaded?.file.name ?? 'chat',
    ...(loaded === undefined
      ? { instructions: DEFAULT_AGENT_INSTRUCTIONS }
      : loaded.instructions === undefined
        ? {}
        : { instructions: loaded.instructions }),
    tools,
    store: store.store,
    ...(options.session === undefined ? {} : { session: options.session }),
    ...(loaded?.file.history === undefined ? {} : { history: loaded.file.history }),
    ...(loaded?.file.context === undefined
      ? {}
      : { context: definedOnly(loaded.file.context) as AgentContextOptions }),
    ...(loaded?.file.maxSteps === undefined ? {} : { maxSteps: loaded.file.maxSteps }),
    ...(options.recall === true || loaded?.file.recall === true ? { recall: true } : {}),
    requestTimeoutMs: timeoutOption(options.timeout),
    // A web tab or another terminal on the same store is told who is answering (E_BUSY).
    turnLease: { label: 'chatfold chat' },
    ...(summarizer === undefined ? {} : { summarizer: definedOnly(summarizer) as AgentModelSpec }),
  });
  return { agent, discovered };
}

/** `--print "prompt"`: one turn, the answer on stdout, notices on stderr; exit 1 on error, 130 when interrupted. */
async function runPrint(agent: Agent, prompt: string, terminal: Terminal): Promise<number> {
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.on('SIGINT', interrupt);
  try {
    const renderer = createEventRenderer(terminal);
    for await (const event of agent.run(prompt, { signal: controller.signal })) renderer.handle(event);
    const done = renderer.finish();
    return done?.reason === 'error' ? 1 : done?.reason === 'aborted' ? 130 : 0;
  } finally {
    process.off('SIGINT', interrupt);
  }
}

/**
 * `chatfold chat [agent]` (CLI-1): opens the store, the workspace and the agent, prints seed
 * 004's resume lines when the session has history, then runs the REPL (or one `--print` turn,
 * or one turn per piped line).
 *
 * @returns The process exit code.
 */
export async function startChat(agentRef: string | undefined, options: ChatCliOptions): Promise<number> {
  const printMode = options.print !== undefined;
  const interactive = !printMode && process.stdin.isTTY === true;
  const terminal = processTerminal({ interactive });
  const store = openStore(options.store);
  try {
    await checkSessionOption(options, store);
    const { agent, discovered } = await openAgent(agentRef, options, store);
    for (const warning of agent.warnings) terminal.notice(`${terminal.style.yellow(warningLine(warning))}\n`);
    if (discovered !== undefined) {
      terminal.notice(
        terminal.style.dim(
          `context window ${discovered.tokens.toLocaleString('en-US')} tokens, as the server reports (${discovered.source}); --window overrides it\n`,
        ),
      );
    }
    const status = await agent.session.status();
    const resumeCommand = resumeCommandOf(agentRef, agent.session.id, options);
    if (status.messagesInHistory > 0) {
      // Seed 004 scenario 6, exactly.
      terminal.notice(`\nResuming session ${agent.session.id}\n${status.text}\n\n`);
    } else if (interactive) {
      terminal.notice(`\nNew session ${agent.session.id}\n\n`);
    }
    if (interactive) {
      const { dim } = terminal.style;
      terminal.notice(
        dim(
          `${agent.name} · ${agent.modelLabel} · ${store.description}\n/help for commands · Ctrl-C cancels a turn · Ctrl-D exits\n\n`,
        ),
      );
    }
    if (printMode) {
      const code = await runPrint(agent, options.print as string, terminal);
      // A run without --session made a new session: say where it is, so it can be continued.
      if (options.session === undefined) {
        terminal.notice(
          `Saved as session ${agent.session.id} in ${store.description}; continue: ${resumeCommand}\n`,
        );
      }
      return code;
    }
    return await runRepl({ agent, terminal, store, resumeCommand, input: process.stdin, interactive });
  } finally {
    await store.store.close();
  }
}
