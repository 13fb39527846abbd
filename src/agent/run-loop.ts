import type { LanguageModel, ModelMessage, ToolSet } from 'ai';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { retryOnOverflow } from '../integrations/call-with-overflow-retry.ts';
import { fromAiSdk } from '../messages/ai-sdk.ts';
import { repairToolRounds } from '../messages/repair-tool-rounds.ts';
import { toAiSdk } from '../messages/to-ai-sdk.ts';
import type {
  Message,
  MessageInput,
  Part,
  Provider,
  ToolCallPart,
  ToolDefinition,
} from '../messages/types.ts';
import type { Session } from '../session/types.ts';
import { toolOutputOf } from './agent-tools.ts';
import { describeProviderError } from './describe-provider-error.ts';
import type { AgentEvent, AgentTool, DoneReason } from './types.ts';

type AiSdk = typeof import('ai');

/** Marks the system message that holds the agent's instructions (swapped for the current ones). */
export const INSTRUCTIONS_METADATA_KEY = 'agentInstructions';

/** Text of the result recorded for a tool call a run was aborted before it finished. */
export const ABORTED_TOOL_RESULT = 'Error: the user interrupted the run before this tool returned';

/** Everything one run needs; built once per agent. */
export interface RunContext {
  readonly ai: AiSdk;
  readonly session: Session;
  readonly model: LanguageModel;
  readonly label: string;
  /** Environment variables the key comes from, named in "refused the API key" errors. */
  readonly keyVariables: readonly string[];
  readonly provider: Provider;
  readonly instructions: string | undefined;
  readonly tools: Readonly<Record<string, AgentTool<unknown>>>;
  readonly sdkTools: ToolSet;
  readonly definitions: readonly ToolDefinition[];
  readonly maxSteps: number;
  readonly maxOutputTokens: number | undefined;
  readonly temperature: number | undefined;
  /** Milliseconds a model call may go without sending anything before it is cancelled. */
  readonly requestTimeoutMs: number | undefined;
}

/** The error of a model call that sent nothing for `requestTimeoutMs` (a stuck or overloaded server). */
function requestTimeoutError(label: string, timeoutMs: number): ChatfoldError {
  const seconds = timeoutMs / 1000;
  return new ChatfoldError(
    'E_PROVIDER',
    `${label} sent nothing for ${Number(seconds.toFixed(1))} s; the request was cancelled (the server may be overloaded or stuck)`,
    { requestTimeoutMs: timeoutMs },
  );
}

interface Totals {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
}

const add = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);

const isAbort = (error: unknown, signal: AbortSignal): boolean =>
  signal.aborted ||
  (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'));

/** Sends the current instructions in place of the stored ones (an edited agent file applies on resume). */
function withCurrentInstructions(messages: readonly Message[], instructions: string | undefined): Message[] {
  return messages.map((message) =>
    instructions !== undefined &&
    message.role === 'system' &&
    message.metadata?.[INSTRUCTIONS_METADATA_KEY] === true
      ? { ...message, parts: [{ type: 'text', text: instructions }] }
      : message,
  );
}

/**
 * The tool loop (AG-3): for every model call, ask the session for the prompt (it compacts when a
 * trigger fires, so a compaction may land between two steps of one run), stream the answer,
 * append it, run the tools one by one appending each result, and go on until the model answers
 * without a tool call. Every event goes to `emit`; the last is `done`.
 */
export async function runLoop(
  context: RunContext,
  input: readonly MessageInput[],
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
): Promise<void> {
  const { session } = context;
  const totals: Totals = { inputTokens: undefined, outputTokens: undefined };
  let steps = 0;
  let finalText = '';
  const done = (reason: DoneReason): void =>
    emit({ type: 'done', reason, steps, text: finalText, usage: { ...totals } });
  const append = async (messages: readonly MessageInput[]): Promise<readonly Message[]> => {
    const appended = await session.append(messages);
    for (const message of appended) emit({ type: 'message', message });
    return appended;
  };
  const fail = (error: unknown): void => {
    if (isAbort(error, signal)) {
      done('aborted');
      return;
    }
    const { code, message } = describeProviderError(error, context.label, context.keyVariables);
    emit({ type: 'error', code, message, error });
    done('error');
  };

  try {
    if (input.length > 0) await append(input);
    for (let step = 0; step < context.maxSteps; step++) {
      if (signal.aborted) return done('aborted');
      // The shared overflow retry (RT-3): one more attempt, compacted against the limit the
      // provider reported; a second overflow is E_CONTEXT_OVERFLOW with limit, actual, provider.
      let streamed: StepOutcome;
      try {
        streamed = await retryOnOverflow({
          prepare: (overflow) =>
            session.prepare({
              provider: context.provider,
              tools: context.definitions,
              signal,
              ...(overflow === undefined
                ? {}
                : {
                    overflow: {
                      ...(overflow.limit === undefined ? {} : { limit: overflow.limit }),
                      ...(overflow.actual === undefined ? {} : { actual: overflow.actual }),
                    },
                  }),
            }),
          send: async (prepared) => {
            if (signal.aborted) return { kind: 'aborted' } as const;
            emit({
              type: 'step-start',
              step,
              promptMessages: prepared.messages.length,
              promptTokens: prepared.tokens,
            });
            steps++;
            const outcome = await streamStep(context, prepared.messages, step, signal, emit);
            if (outcome.kind === 'error') throw outcome.error;
            return outcome;
          },
        });
      } catch (error) {
        return fail(error);
      }
      if (streamed.kind !== 'answer') return done('aborted');
      const { assistant, invalid, inputs, usage } = streamed;
      if (assistant === undefined) {
        // Aborted before the model produced anything worth keeping.
        return done(signal.aborted ? 'aborted' : 'stop');
      }
      const [stored] = await append([assistant]);
      totals.inputTokens = add(totals.inputTokens, usage.inputTokens);
      totals.outputTokens = add(totals.outputTokens, usage.outputTokens);
      if (usage.inputTokens !== undefined || usage.outputTokens !== undefined) {
        await session.recordUsage({
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          ...(stored === undefined ? {} : { messageId: stored.id }),
        });
      }
      emit({ type: 'usage', step, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens });
      const calls = assistant.parts.filter((part): part is ToolCallPart => part.type === 'tool-call');
      const text = assistant.parts
        .filter((part) => part.type === 'text')
        .map((part) => (part as { text: string }).text)
        .join('');
      if (streamed.aborted) {
        if (calls.length > 0) await appendAbortedResults(calls, append);
        return done('aborted');
      }
      if (calls.length === 0) {
        finalText = text;
        return done('stop');
      }
      for (let index = 0; index < calls.length; index++) {
        const call = calls[index] as ToolCallPart;
        if (signal.aborted) {
          await appendAbortedResults(calls.slice(index), append);
          return done('aborted');
        }
        const started = Date.now();
        const result = await runTool(
          context,
          call,
          { invalid: invalid.get(call.id), input: inputs.get(call.id) },
          signal,
        );
        emit({
          type: 'tool-result',
          step,
          callId: call.id,
          toolName: call.name,
          output: result.output,
          isError: result.isError,
          truncated: result.truncated,
          durationMs: Date.now() - started,
        });
        await append([
          {
            role: 'tool',
            parts: [
              {
                type: 'tool-result',
                callId: call.id,
                toolName: call.name,
                content: [{ type: 'text', text: result.output }],
                ...(result.isError ? { isError: true } : {}),
              },
            ],
          },
        ]);
      }
    }
    done('step-limit');
  } catch (error) {
    fail(error);
  }
}

async function appendAbortedResults(
  calls: readonly ToolCallPart[],
  append: (messages: readonly MessageInput[]) => Promise<readonly Message[]>,
): Promise<void> {
  // Every call keeps a result, so the history stays valid for the next turn (MSG-3).
  await append(
    calls.map((call) => ({
      role: 'tool' as const,
      parts: [
        {
          type: 'tool-result' as const,
          callId: call.id,
          toolName: call.name,
          content: [{ type: 'text' as const, text: ABORTED_TOOL_RESULT }],
          isError: true,
        },
      ],
      metadata: { interrupted: true },
    })),
  );
}

type StepOutcome =
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'aborted' }
  | {
      readonly kind: 'answer';
      /** The assistant message to append; undefined when nothing was produced. */
      readonly assistant: MessageInput | undefined;
      /** Calls the SDK could not parse or that name no tool: the error the model should see. */
      readonly invalid: ReadonlyMap<string, string>;
      /** Each call's input as the SDK parsed and validated it. */
      readonly inputs: ReadonlyMap<string, unknown>;
      readonly usage: Totals;
      readonly aborted: boolean;
    };

/** One model call: streams deltas and tool calls as events, returns the assistant message. */
async function streamStep(
  context: RunContext,
  prompt: readonly Message[],
  step: number,
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
): Promise<StepOutcome> {
  // Never sent broken (issue 24 §5): another turn's unfinished tool round is held back, results
  // interleaved in the log go back to their calls; a well-formed prompt passes unchanged.
  const sendable = repairToolRounds(prompt).messages;
  const messages = toAiSdk(withCurrentInstructions(sendable, context.instructions)) as ModelMessage[];
  // The request timeout is on silence: a long answer that keeps streaming is never cut.
  const timeoutMs = context.requestTimeoutMs;
  const silence = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const heard = (): void => {
    if (timeoutMs === undefined) return;
    clearTimeout(timer);
    timer = setTimeout(() => silence.abort(requestTimeoutError(context.label, timeoutMs)), timeoutMs);
  };
  heard();
  const timedOut = (): ChatfoldError | undefined =>
    silence.signal.aborted && !signal.aborted ? (silence.signal.reason as ChatfoldError) : undefined;
  const result = context.ai.streamText({
    model: context.model,
    messages,
    allowSystemInMessages: true,
    tools: context.sdkTools,
    abortSignal: timeoutMs === undefined ? signal : AbortSignal.any([signal, silence.signal]),
    // Errors arrive as stream parts and become `error` events; the SDK's default logs to the console.
    onError: () => undefined,
    ...(context.maxOutputTokens === undefined ? {} : { maxOutputTokens: context.maxOutputTokens }),
    ...(context.temperature === undefined ? {} : { temperature: context.temperature }),
  });
  let text = '';
  const invalid = new Map<string, string>();
  const inputs = new Map<string, unknown>();
  const usage: Totals = { inputTokens: undefined, outputTokens: undefined };
  let aborted = false;
  try {
    for await (const part of result.fullStream) {
      heard();
      if (timedOut() !== undefined) return { kind: 'error', error: timedOut() };
      switch (part.type) {
        case 'text-delta':
          text += part.text;
          emit({ type: 'text-delta', step, text: part.text });
          break;
        case 'reasoning-delta':
          emit({ type: 'reasoning-delta', step, text: part.text });
          break;
        case 'tool-call': {
          const tool = context.tools[part.toolName];
          const path = (() => {
            try {
              return tool?.pathOf?.(part.input);
            } catch {
              return undefined;
            }
          })();
          emit({
            type: 'tool-call',
            step,
            callId: part.toolCallId,
            toolName: part.toolName,
            input: part.input,
            ...(path === undefined ? {} : { path }),
          });
          inputs.set(part.toolCallId, part.input);
          if ((part as { invalid?: boolean }).invalid === true) {
            const error = (part as { error?: unknown }).error;
            invalid.set(
              part.toolCallId,
              tool === undefined
                ? `Error: there is no tool named ${part.toolName}; available: ${Object.keys(context.tools).join(', ') || 'none'}`
                : `Error: invalid arguments for ${part.toolName}: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
          break;
        }
        case 'finish-step':
          usage.inputTokens = part.usage.inputTokens;
          usage.outputTokens = part.usage.outputTokens;
          break;
        case 'abort':
          if (timedOut() !== undefined) return { kind: 'error', error: timedOut() };
          aborted = true;
          break;
        case 'error':
          if (timedOut() !== undefined) return { kind: 'error', error: timedOut() };
          if (signal.aborted) aborted = true;
          else return { kind: 'error', error: part.error };
          break;
        default:
          break;
      }
    }
  } catch (error) {
    if (timedOut() !== undefined) return { kind: 'error', error: timedOut() };
    if (!signal.aborted) return { kind: 'error', error };
    aborted = true;
  } finally {
    clearTimeout(timer);
  }
  if (timedOut() !== undefined) return { kind: 'error', error: timedOut() };
  if (aborted || signal.aborted) {
    // Keep what the user already saw (the partial answer), marked as interrupted.
    const assistant: MessageInput | undefined =
      text === ''
        ? undefined
        : { role: 'assistant', parts: [{ type: 'text', text }], metadata: { interrupted: true } };
    return { kind: 'answer', assistant, invalid, inputs, usage, aborted: true };
  }
  const response = await result.response;
  const assistantMessages = fromAiSdk(
    response.messages.filter((message) => message.role === 'assistant') as Parameters<typeof fromAiSdk>[0],
  );
  const parts: Part[] = assistantMessages.flatMap((message) => [...message.parts]);
  const assistant: MessageInput | undefined =
    parts.length === 0
      ? { role: 'assistant', parts: [{ type: 'text', text: '' }] }
      : { role: 'assistant', parts };
  return { kind: 'answer', assistant, invalid, inputs, usage, aborted: false };
}

interface ToolRun {
  readonly output: string;
  readonly isError: boolean;
  readonly truncated: boolean;
}

/** Runs one tool call; a refusal, a thrown error or bad arguments become an error result the model sees. */
async function runTool(
  context: RunContext,
  call: ToolCallPart,
  parsed: { readonly invalid: string | undefined; readonly input: unknown },
  signal: AbortSignal,
): Promise<ToolRun> {
  if (parsed.invalid !== undefined) return { output: parsed.invalid, isError: true, truncated: false };
  const tool = context.tools[call.name];
  if (tool === undefined) {
    return {
      output: `Error: there is no tool named ${call.name}; available: ${Object.keys(context.tools).join(', ') || 'none'}`,
      isError: true,
      truncated: false,
    };
  }
  let input = parsed.input;
  if (input === undefined) {
    try {
      input = JSON.parse(call.arguments);
    } catch {
      return { output: `Error: the arguments of ${call.name} are not JSON`, isError: true, truncated: false };
    }
  }
  try {
    const result = toolOutputOf(await tool.execute(input, { signal, callId: call.id }));
    return { output: result.output, isError: result.isError === true, truncated: result.truncated === true };
  } catch (error) {
    if (signal.aborted) return { output: ABORTED_TOOL_RESULT, isError: true, truncated: false };
    const message = ChatfoldError.isInstance(error)
      ? error.message
      : error instanceof Error
        ? error.message
        : String(error);
    return { output: `Error: ${message}`, isError: true, truncated: false };
  }
}
