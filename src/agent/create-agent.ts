import type { LanguageModel } from 'ai';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { importPeer } from '../errors/import-peer.ts';
import type { MessageInput, Provider } from '../messages/types.ts';
import { parseOptions } from '../options/parse-options.ts';
import { createChatfold } from '../session/create-chatfold.ts';
import type { Session } from '../session/types.ts';
import { acquireTurnLease, type TurnLease } from '../stores/shared/turn-lease.ts';
import { hasSessionCatalog } from '../stores/types.ts';
import { agentOptionsSchema, isModelSpecObject } from './agent-options-schema.ts';
import { prepareTools } from './agent-tools.ts';
import { contextToChatfoldOptions } from './context-options.ts';
import { createEventChannel, type EventChannel } from './event-channel.ts';
import { chatfoldProviderOf, PROVIDER_KEYS } from './language-model.ts';
import { languageModelFor } from './language-model-for.ts';
import { modelWarnings } from './model-warnings.ts';
import { RECALL_TOOL_NAME, recallAgentTool } from './recall-tool.ts';
import { INSTRUCTIONS_METADATA_KEY, type RunContext, runLoop } from './run-loop.ts';
import { agentEventOf } from './session-events.ts';
import { streamingSummarizer } from './streaming-summarizer.ts';
import { summaryPreviewOf } from './summary-preview.ts';
import type {
  Agent,
  AgentEvent,
  AgentModelSpec,
  AgentOptions,
  AgentTool,
  DoneReason,
  PreviewOptions,
  RunOptions,
  SummarizeOptions,
} from './types.ts';

/** A `done` event of something that made no model call (a refused run, a summary). */
const doneEvent = (reason: DoneReason): AgentEvent => ({
  type: 'done',
  reason,
  steps: 0,
  text: '',
  usage: { inputTokens: undefined, outputTokens: undefined },
});

/** Model calls per run before it stops with `step-limit`. */
export const DEFAULT_MAX_STEPS = 25;

const isSpec = (model: LanguageModel | AgentModelSpec): model is AgentModelSpec => isModelSpecObject(model);

/** The chatfold format of a model instance, from its AI SDK provider id (`anthropic.messages`, `google.generative-ai`). */
function providerOfModel(model: LanguageModel): Provider {
  const id = typeof model === 'string' ? model : model.provider;
  if (id.startsWith('anthropic')) return 'anthropic';
  if (id.startsWith('google')) return 'gemini';
  return 'openai';
}

/** A short id for a new session (`chatfold chat --session ID` resumes it). */
export function newSessionId(): string {
  return globalThis.crypto.randomUUID().replaceAll('-', '').slice(0, 12);
}

function checkOptions(options: AgentOptions): void {
  if (
    typeof options !== 'object' ||
    options === null ||
    options.model === undefined ||
    options.model === null
  ) {
    throw new ChatfoldError('E_INVALID_OPTIONS', 'createAgent: expected an options object with a model', {});
  }
  if (options.maxSteps !== undefined && !(Number.isInteger(options.maxSteps) && options.maxSteps > 0)) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `createAgent: maxSteps: expected a positive integer, received ${JSON.stringify(options.maxSteps)}`,
      { option: 'maxSteps' },
    );
  }
  // Unknown keys fail with a did-you-mean (issue 18: `context.maxMessagesBeforeSumary` was ignored).
  parseOptions(agentOptionsSchema(options), options, 'createAgent');
  for (const [name, tool] of Object.entries(options.tools ?? {})) {
    if (typeof tool?.execute !== 'function' || typeof tool.description !== 'string') {
      throw new ChatfoldError(
        'E_INVALID_OPTIONS',
        `createAgent: tools.${name}: expected { description, inputSchema, execute }`,
        { option: `tools.${name}` },
      );
    }
  }
}

/**
 * Creates an agent (AG-3): the tool loop over the Vercel AI SDK bound to a chatfold session.
 * Before every model call the session prepares the prompt (compacting when a trigger fires);
 * every message — user input, assistant turns, tool calls and results — is appended as it
 * happens; usage is recorded; `beforeCompact` / `afterCompact` hooks apply. The CLI
 * (`chatfold chat`) and the web app are thin layers over this.
 *
 * @param options Model (an AI SDK model or `{ provider, name, baseURL }`), instructions, tools,
 *   context settings (seed 004), hooks, store, session id.
 * @returns The agent, its session opened (resumed when the id exists, ST-6).
 * @throws ChatfoldError `E_INVALID_OPTIONS`, `E_MISSING_API_KEY`, `E_MISSING_DEPENDENCY` at
 *   construction; runtime faults become `error` events of a run instead.
 *
 * @example
 * const agent = await createAgent({
 *   model: { provider: 'openai-compatible', name: 'qwen2.5:32b', baseURL: 'http://localhost:11434/v1' },
 *   instructions: 'You are a helpful assistant.',
 *   context: { maxMessagesBeforeSummary: 30, maxTokensBeforeSummary: 28_000 },
 * });
 * for await (const event of agent.run('Hello')) if (event.type === 'text-delta') process.stdout.write(event.text);
 */
export async function createAgent(options: AgentOptions): Promise<Agent> {
  checkOptions(options);
  const ai = await importPeer('ai', () => import('ai'), 'chatfold/agent');
  const spec = isSpec(options.model) ? options.model : undefined;
  const model = spec === undefined ? (options.model as LanguageModel) : await languageModelFor(spec);
  const modelId = spec?.name ?? (typeof model === 'string' ? model : model.modelId);
  const provider = spec === undefined ? providerOfModel(model) : chatfoldProviderOf(spec.provider);
  const label = spec === undefined ? modelId : `${spec.provider}:${spec.name}`;
  const summarizerModel =
    options.summarizer === undefined
      ? model
      : isSpec(options.summarizer)
        ? await languageModelFor(options.summarizer)
        : options.summarizer;
  // chatfold_recall answers from the session opened below (its tool is defined before it, so
  // the definitions count against the budget from the first prompt).
  let opened: Session | undefined;
  const tools = {
    ...(options.tools ?? {}),
    ...(options.recall === true
      ? { [RECALL_TOOL_NAME]: recallAgentTool({ history: (query) => (opened as Session).history(query) }) }
      : {}),
  } as Readonly<Record<string, AgentTool<unknown>>>;
  const { sdkTools, definitions } = await prepareTools(ai, tools);

  // The channel of the run or summary in progress: session events and summary deltas go there.
  // `settled`: its work is over (`done` sent) and only the lease is being given back.
  let current: { channel: EventChannel<AgentEvent>; signal: AbortSignal; settled: boolean } | undefined;
  const forward = (event: AgentEvent): void => {
    if (current?.settled === false) current.channel.push(event);
  };
  const summarizerId =
    options.summarizer === undefined
      ? label
      : isSpec(options.summarizer)
        ? `${options.summarizer.provider}:${options.summarizer.name}`
        : typeof options.summarizer === 'string'
          ? options.summarizer
          : options.summarizer.modelId;
  const summarizer = streamingSummarizer(ai, summarizerModel, {
    modelId: summarizerId,
    signal: () => current?.signal,
  });
  const chatfold = createChatfold({
    model: modelId,
    ...(spec?.maxInputTokens === undefined ? {} : { window: spec.maxInputTokens }),
    ...(spec?.maxOutputTokens === undefined ? {} : { maxOutputTokens: spec.maxOutputTokens }),
    provider,
    tools: definitions,
    summarizer,
    ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.counter === undefined ? {} : { counter: options.counter }),
    ...(options.background === undefined ? {} : { background: options.background }),
    ...contextToChatfoldOptions(options.context, options.history),
  });
  const session: Session = await chatfold.session(options.session ?? newSessionId());
  opened = session;
  // Lists of sessions (`/sessions`, the web app) show which agent and model a session belongs to.
  if (hasSessionCatalog(chatfold.store)) {
    await chatfold.store.ensureSession(session.id, { agent: options.name ?? 'agent', model: label });
  }
  session.on((event) => {
    const translated = agentEventOf(event);
    if (translated !== undefined) forward(translated);
  });
  const context: RunContext = {
    ai,
    session,
    model,
    label,
    keyVariables: spec === undefined ? [] : PROVIDER_KEYS[spec.provider],
    provider,
    instructions: options.instructions,
    tools,
    sdkTools,
    definitions,
    maxSteps: options.maxSteps ?? DEFAULT_MAX_STEPS,
    requestTimeoutMs: options.requestTimeoutMs,
    maxOutputTokens: spec?.maxOutputTokens,
    temperature: spec?.temperature,
  };

  /**
   * Takes the session's turn lease for one run or summary (across processes, issue 24 §5). When
   * another process holds it, or the store cannot be asked, emits the `error` and `done` events
   * that end the run and returns `'refused'`; undefined when leases are off.
   */
  async function leaseTurn(
    lost: AbortController,
    emit: (event: AgentEvent) => void,
  ): Promise<TurnLease | 'refused' | undefined> {
    const settings = options.turnLease;
    if (settings === 'off') return undefined;
    try {
      return await acquireTurnLease(chatfold.store, session.id, {
        label: settings?.label ?? `agent ${options.name ?? 'agent'}`,
        ...(settings?.ttlMs === undefined ? {} : { ttlMs: settings.ttlMs }),
        ...(settings?.renewMs === undefined ? {} : { renewMs: settings.renewMs }),
        onLost: (reason) => {
          if (lost.signal.aborted) return;
          const why = reason instanceof Error ? reason.message : String(reason);
          emit({
            type: 'error',
            code: 'E_BUSY',
            message: `this turn stopped: it could not renew its hold on session ${session.id} (${why}); what it produced is kept`,
            error: reason,
          });
          lost.abort(reason);
        },
      });
    } catch (error) {
      emit({
        type: 'error',
        code: ChatfoldError.isInstance(error) ? error.code : undefined,
        message: error instanceof Error ? error.message : String(error),
        error,
      });
      emit(doneEvent('error'));
      return 'refused';
    }
  }

  /** Runs `work` with its own event channel; one run or summary at a time. */
  function stream(
    signal: AbortSignal | undefined,
    work: (signal: AbortSignal, emit: (event: AgentEvent) => void) => Promise<void>,
  ): AsyncIterable<AgentEvent> {
    return {
      [Symbol.asyncIterator]() {
        const channel = createEventChannel<AgentEvent>();
        const runSignal = signal ?? new AbortController().signal;
        if (current !== undefined) {
          channel.push({
            type: 'error',
            code: 'E_INVALID_OPTIONS',
            message: 'another run of this agent is in progress; wait for its done event',
            error: undefined,
          });
          channel.push(doneEvent('error'));
          channel.close();
          return channel[Symbol.asyncIterator]();
        }
        // The run also stops when its turn lease is lost (another process took the session over).
        const lost = new AbortController();
        const mine = { channel, signal: AbortSignal.any([runSignal, lost.signal]), settled: false };
        current = mine;
        const emit = (event: AgentEvent): void => channel.push(event);
        void (async () => {
          const lease = await leaseTurn(lost, emit);
          if (lease === 'refused') return;
          try {
            await work(mine.signal, emit);
          } finally {
            mine.settled = true;
            await lease?.release();
          }
        })().finally(() => {
          if (current === mine) current = undefined;
          channel.close();
        });
        return channel[Symbol.asyncIterator]();
      },
    };
  }

  return {
    name: options.name ?? 'agent',
    modelLabel: label,
    session,
    warnings: modelWarnings(modelId, spec?.maxInputTokens),
    run(input, runOptions: RunOptions = {}) {
      const messages = toInput(input, session.id);
      return stream(runOptions.signal, async (signal, emit) => {
        const first =
          options.instructions !== undefined && (await session.history({ limit: 1 })).length === 0;
        const withInstructions: MessageInput[] = first
          ? [
              {
                role: 'system',
                parts: [{ type: 'text', text: options.instructions as string }],
                metadata: { [INSTRUCTIONS_METADATA_KEY]: true },
              },
              ...messages,
            ]
          : messages;
        await runLoop(context, withInstructions, signal, emit);
      });
    },
    summarize(summarizeOptions: SummarizeOptions = {}) {
      return stream(summarizeOptions.signal, async (signal, emit) => {
        // Every summarize() reports its outcome with a compaction-end, also when nothing ran
        // (a beforeCompact cancel, nothing to compact): front ends never guess.
        let ended = false;
        const stop = session.on('compaction-end', () => {
          ended = true;
        });
        const started = performance.now();
        try {
          const plan = await session.compact({
            mode: 'manual',
            signal,
            ...(summarizeOptions.from === undefined ? {} : { from: summarizeOptions.from }),
            ...(summarizeOptions.instructions === undefined
              ? {}
              : { instructions: summarizeOptions.instructions }),
            ...(summarizeOptions.retention === undefined ? {} : { retention: summarizeOptions.retention }),
          });
          if (!ended) {
            emit({
              type: 'compaction-end',
              mode: 'manual',
              report: plan,
              durationMs: performance.now() - started,
            });
          }
          emit(doneEvent(signal.aborted ? 'aborted' : 'stop'));
        } catch (error) {
          if (!signal.aborted) {
            emit({
              type: 'error',
              code: ChatfoldError.isInstance(error) ? error.code : undefined,
              message: `summarizing failed: ${error instanceof Error ? error.message : String(error)}; the history is unchanged`,
              error,
            });
          }
          emit(doneEvent(signal.aborted ? 'aborted' : 'error'));
        } finally {
          stop();
        }
      });
    },
    async previewSummary(previewOptions: PreviewOptions = {}) {
      const plan = await session.compact({
        mode: 'manual',
        dryRun: true,
        ...(previewOptions.instructions === undefined ? {} : { instructions: previewOptions.instructions }),
        ...(previewOptions.retention === undefined ? {} : { retention: previewOptions.retention }),
      });
      const status = await session.status();
      return summaryPreviewOf(plan, status.messagesInHistory, status.policy.floor.tokens);
    },
  };
}

function toInput(input: string | MessageInput | readonly MessageInput[], sessionId: string): MessageInput[] {
  if (typeof input === 'string') return [{ role: 'user', parts: [{ type: 'text', text: input }] }];
  if (Array.isArray(input)) return [...input];
  if (typeof input === 'object' && input !== null) return [input as MessageInput];
  throw new ChatfoldError(
    'E_INVALID_OPTIONS',
    `run(input): expected a string or a message, received ${input === null ? 'null' : typeof input}`,
    { sessionId },
  );
}
