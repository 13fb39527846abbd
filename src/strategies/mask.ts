import { DEFAULTS } from '../defaults.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { EngineCache } from '../messages/engine-cache.ts';
import { toolArguments } from '../messages/tool-arguments.ts';
import type { JsonValue, Message, Part, ToolCallPart } from '../messages/types.ts';
import {
  chatfoldMetadata,
  formatCount,
  replaceToolResult,
  toolResultText,
  transformMessage,
} from '../projection/chatfold-metadata.ts';
import type { PlanReplacement } from '../projection/types.ts';
import { stageEffect } from './stage-effect.ts';
import type { Strategy, StrategyContext, StrategyResult } from './types.ts';

/** Outputs at or below this many characters are not worth masking. */
export const DEFAULT_MASK_MIN_CHARS = 200;
const MAX_ARGUMENT_PREVIEW = 160;

/** Options of {@link mask}. */
export interface MaskOptions {
  /** Newest tool-result messages left untouched. Default `DEFAULTS.maskKeepRecent`. */
  readonly keepRecent?: number;
  /** Tools whose outputs are never masked. */
  readonly exemptTools?: readonly string[];
  /** Outputs this short stay. Default {@link DEFAULT_MASK_MIN_CHARS}. */
  readonly minChars?: number;
  /**
   * Tool-call inputs too: `shrink` replaces the large string values of old calls' arguments
   * (a write's content, an edit's old and new text) by a marker naming their size; the call
   * keeps its id, name, paths and commands, and its arguments stay valid JSON. Default `keep`.
   */
  readonly toolInputs?: 'keep' | 'shrink';
  /** Argument values this short stay. Default {@link DEFAULT_MASK_MIN_INPUT_CHARS}. */
  readonly minInputChars?: number;
}

/** Argument strings at or below this many characters are not worth replacing. */
export const DEFAULT_MASK_MIN_INPUT_CHARS = 300;
/** Argument keys whose values always stay: what the call was about (paths, commands, names). */
const KEPT_ARGUMENT_KEYS =
  /^(file_?path|path|paths|notebook_path|absolute_path|dir_path|target_file|filename|file|command|cmd|script|name|url|pattern|glob|description)$/i;

/**
 * The arguments with every long string value (at any depth, except under the kept keys)
 * replaced by a marker naming its size; undefined when nothing is long enough.
 */
export function shrinkToolArguments(
  args: Readonly<Record<string, JsonValue>>,
  { minChars, messageId }: { minChars: number; messageId: string },
): Record<string, JsonValue> | undefined {
  let changed = false;
  const shrink = (value: JsonValue, key: string): JsonValue => {
    if (typeof value === 'string') {
      if (value.length <= minChars || KEPT_ARGUMENT_KEYS.test(key)) return value;
      changed = true;
      return `[${key} omitted by chatfold: ${formatCount(value.length)} characters; the original is kept in the history as message ${messageId}]`;
    }
    if (Array.isArray(value)) return value.map((item) => shrink(item, key));
    if (typeof value === 'object' && value !== null) {
      if (KEPT_ARGUMENT_KEYS.test(key)) return value;
      return Object.fromEntries(Object.entries(value).map(([inner, item]) => [inner, shrink(item, inner)]));
    }
    return value;
  };
  const out = Object.fromEntries(Object.entries(args).map(([key, value]) => [key, shrink(value, key)]));
  return changed ? out : undefined;
}

/** Index of every tool call by id, for naming what an output answered. */
export function indexToolCalls(messages: readonly Message[]): Map<string, ToolCallPart> {
  const calls = new Map<string, ToolCallPart>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.parts) if (part.type === 'tool-call') calls.set(part.id, part);
  }
  return calls;
}

/** One-line description of a call: `Read {"file_path":"src/a.ts"}`, arguments clipped. */
export function describeCall(call: ToolCallPart | undefined, fallbackName = 'tool'): string {
  if (call === undefined) return fallbackName;
  const args =
    call.arguments.length > MAX_ARGUMENT_PREVIEW
      ? `${call.arguments.slice(0, MAX_ARGUMENT_PREVIEW)}…`
      : call.arguments;
  return `${call.name} ${args}`;
}

/** An assistant message with its calls' large inputs shrunk (paths and commands stay); itself when none is. */
export function shrinkCallMessage(message: Message, cache: EngineCache | undefined): Message {
  if (message.role !== 'assistant' || chatfoldMetadata(message)?.transform === 'summary') return message;
  const parts = shrinkCalls(message, new Set(), DEFAULT_MASK_MIN_INPUT_CHARS, cache);
  return parts === undefined ? message : transformMessage(message, parts, { transform: 'masked' }, cache);
}

/** The parts of an assistant message with its calls' large inputs shrunk; undefined when none is. */
function shrinkCalls(
  message: Message,
  exempt: ReadonlySet<string>,
  minChars: number,
  cache: EngineCache | undefined,
): Part[] | undefined {
  let changed = false;
  const parts = message.parts.map((part) => {
    if (part.type !== 'tool-call' || exempt.has(part.name) || part.arguments.length <= minChars) return part;
    const args = toolArguments(part, cache);
    const shrunk = args && shrinkToolArguments(args, { minChars, messageId: message.id });
    if (shrunk === undefined) return part;
    changed = true;
    return { ...part, arguments: JSON.stringify(shrunk) };
  });
  return changed ? parts : undefined;
}

/**
 * `mask` (STR-2, observation masking): tool outputs older than the newest `keepRecent`
 * tool-result messages become a placeholder that keeps the tool name, arguments and size.
 * With `toolInputs: 'shrink'`, the large argument values of calls older than the newest
 * `keepRecent` calling messages become markers too (paths and commands stay). Oldest first,
 * and only until the projection reaches the target; protected messages are never touched.
 */
export function mask({
  keepRecent = DEFAULTS.maskKeepRecent,
  exemptTools = [],
  minChars = DEFAULT_MASK_MIN_CHARS,
  toolInputs = 'keep',
  minInputChars = DEFAULT_MASK_MIN_INPUT_CHARS,
}: MaskOptions = {}): Strategy {
  if (toolInputs !== 'keep' && toolInputs !== 'shrink') {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `mask.toolInputs: expected 'keep' or 'shrink', received ${JSON.stringify(toolInputs) ?? typeof toolInputs}`,
      { option: 'mask.toolInputs' },
    );
  }
  const exempt = new Set(exemptTools);
  return {
    name: 'mask',
    apply(messages, context): StrategyResult {
      const resultIndexes: number[] = [];
      const callIndexes: number[] = [];
      messages.forEach((message, index) => {
        if (message.role === 'tool') resultIndexes.push(index);
        else if (
          toolInputs === 'shrink' &&
          message.role === 'assistant' &&
          message.parts.some((part) => part.type === 'tool-call')
        )
          callIndexes.push(index);
      });
      const inputCandidates = new Set(callIndexes.slice(0, Math.max(0, callIndexes.length - keepRecent)));
      const candidates = [
        ...resultIndexes.slice(0, Math.max(0, resultIndexes.length - keepRecent)),
        ...inputCandidates,
      ].sort((a, b) => a - b);
      const unreachable = {
        edits: {},
        effect: stageEffect({ notes: ['masking alone cannot reach the target; left to later stages'] }),
      };
      // What masking leaves alone is counted first, newest first, only until it passes the target
      // (issue 19 §3): a long history is not tokenized in full just to learn that masking its old
      // outputs cannot be enough.
      if (untouchedExceed(messages, new Set(candidates), context)) return unreachable;
      let tokens = context.counter.count(messages).total;
      // Shrunk calls, made once (for what masking can reach, then for the edits).
      const shrunkCalls = new Map<number, Message>();
      for (const index of inputCandidates) {
        const message = messages[index] as Message;
        if (context.protectedIds.has(message.id) || chatfoldMetadata(message) !== undefined) continue;
        const parts = shrinkCalls(message, exempt, minInputChars, context.cache);
        if (parts !== undefined)
          shrunkCalls.set(index, transformMessage(message, parts, { transform: 'masked' }, context.cache));
      }
      // If masking every candidate could not reach the target, a later stage (summarize,
      // truncate) must act on these messages anyway: masking them first would only churn.
      const PLACEHOLDER_TOKENS = 60;
      let reachable = tokens;
      for (const index of candidates) {
        const message = messages[index] as Message;
        if (inputCandidates.has(index)) {
          const next = shrunkCalls.get(index);
          if (next !== undefined)
            reachable -= context.counter.countMessage(message) - context.counter.countMessage(next);
        } else if (!context.protectedIds.has(message.id))
          reachable -= Math.max(0, context.counter.countMessage(message) - PLACEHOLDER_TOKENS);
      }
      if (reachable > context.target) return unreachable;
      // Calls by id as of each result (ids may be reused across turns, so index going forward);
      // only built once masking can reach the target.
      const calls = new Map<string, ToolCallPart>();
      const callsAt = new Map<number, Map<string, ToolCallPart>>();
      messages.forEach((message, index) => {
        if (message.role === 'assistant') {
          for (const part of message.parts) if (part.type === 'tool-call') calls.set(part.id, part);
        } else if (message.role === 'tool') {
          const local = new Map<string, ToolCallPart>();
          for (const part of message.parts) {
            const call = part.type === 'tool-result' ? calls.get(part.callId) : undefined;
            if (call !== undefined && part.type === 'tool-result') local.set(part.callId, call);
          }
          callsAt.set(index, local);
        }
      });
      const replace: PlanReplacement[] = [];
      let shrunk = 0;
      for (const index of candidates) {
        if (tokens <= context.target) break;
        const message = messages[index] as Message;
        if (context.protectedIds.has(message.id) || chatfoldMetadata(message) !== undefined) continue;
        if (inputCandidates.has(index)) {
          const next = shrunkCalls.get(index);
          if (next === undefined) continue;
          tokens += context.counter.countMessage(next) - context.counter.countMessage(message);
          replace.push({ id: message.id, message: next });
          shrunk++;
          continue;
        }
        let changed = false;
        const parts = message.parts.map((part) => {
          if (part.type !== 'tool-result') return part;
          const call = callsAt.get(index)?.get(part.callId);
          const name = call?.name ?? part.toolName ?? 'tool';
          if (exempt.has(name)) return part;
          const text = toolResultText(part);
          if (text.length <= minChars) return part;
          changed = true;
          return replaceToolResult(
            part,
            `[output omitted by chatfold: ${describeCall(call, name)} returned ${formatCount(text.length)} characters${part.isError ? ' (error)' : ''}; the original is kept in the history as message ${message.id}]`,
          );
        });
        if (!changed) continue;
        const next = transformMessage(message, parts, { transform: 'masked' }, context.cache);
        tokens += context.counter.countMessage(next) - context.counter.countMessage(message);
        replace.push({ id: message.id, message: next });
      }
      const masked = replace.length;
      const outputs = masked - shrunk;
      return {
        edits: { replace },
        effect: stageEffect({
          masked,
          notes: [
            ...(outputs ? [`masked ${outputs} old tool output message(s)`] : []),
            ...(shrunk ? [`shrank the inputs of ${shrunk} old tool-call message(s)`] : []),
          ],
        }),
      };
    },
  };
}

/**
 * Whether the messages masking would not touch (everything but the candidates) already exceed
 * the target on their own; counted newest first, stopping as soon as they do.
 */
function untouchedExceed(
  messages: readonly Message[],
  candidates: ReadonlySet<number>,
  context: StrategyContext,
): boolean {
  let tokens = context.counter.count([]).total;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (candidates.has(index)) continue;
    tokens += context.counter.countMessage(messages[index] as Message);
    if (tokens > context.target) return true;
  }
  return false;
}
