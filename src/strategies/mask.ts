import { DEFAULTS } from '../defaults.ts';
import type { Message, ToolCallPart } from '../messages/types.ts';
import {
  chatfoldMetadata,
  formatCount,
  replaceToolResult,
  toolResultText,
  transformMessage,
} from '../projection/chatfold-metadata.ts';
import type { PlanReplacement } from '../projection/types.ts';
import { stageEffect } from './stage-effect.ts';
import type { Strategy, StrategyResult } from './types.ts';

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

/**
 * `mask` (STR-2, observation masking): tool outputs older than the newest `keepRecent`
 * tool-result messages become a placeholder that keeps the tool name, arguments and size.
 * Oldest first, and only until the projection reaches the target.
 */
export function mask({
  keepRecent = DEFAULTS.maskKeepRecent,
  exemptTools = [],
  minChars = DEFAULT_MASK_MIN_CHARS,
}: MaskOptions = {}): Strategy {
  const exempt = new Set(exemptTools);
  return {
    name: 'mask',
    apply(messages, context): StrategyResult {
      const resultIndexes: number[] = [];
      messages.forEach((message, index) => {
        if (message.role === 'tool') resultIndexes.push(index);
      });
      const candidates = resultIndexes.slice(0, Math.max(0, resultIndexes.length - keepRecent));
      let tokens = context.counter.count(messages).total;
      // If masking every candidate could not reach the target, a later stage (summarize,
      // truncate) must act on these messages anyway: masking them first would only churn.
      const PLACEHOLDER_TOKENS = 60;
      let reachable = tokens;
      for (const index of candidates) {
        const message = messages[index] as Message;
        if (!context.protectedIds.has(message.id))
          reachable -= Math.max(0, context.counter.countMessage(message) - PLACEHOLDER_TOKENS);
      }
      if (reachable > context.target) {
        return {
          edits: {},
          effect: stageEffect({ notes: ['masking alone cannot reach the target; left to later stages'] }),
        };
      }
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
      for (const index of candidates) {
        if (tokens <= context.target) break;
        const message = messages[index] as Message;
        if (context.protectedIds.has(message.id) || chatfoldMetadata(message) !== undefined) continue;
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
      return {
        edits: { replace },
        effect: stageEffect({
          masked,
          notes: masked ? [`masked ${masked} old tool output message(s)`] : [],
        }),
      };
    },
  };
}
