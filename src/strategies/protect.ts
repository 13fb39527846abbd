import type { Message } from '../messages/types.ts';
import { chatfoldMetadata } from '../projection/chatfold-metadata.ts';
import type { MessageUnit } from './tool-groups.ts';

/** What compaction must never drop or change (STR-8). */
export interface ProtectOptions {
  /** Newest messages kept verbatim, widened to whole tool groups (the policy's `protect.recentMessages`). Default 0. */
  readonly keepRecent?: number;
  /** Keep the first user message, the goal (the policy's `protect.firstUserMessage`). Default true. */
  readonly keepFirstUser?: boolean;
  /** Keep the latest user turn (the request being answered). Default true; a manual "summarize all" turns it off. */
  readonly keepLatestTurn?: boolean;
  /** Ids of messages to keep, in addition to messages with `pinned: true`. */
  readonly pinnedIds?: readonly string[];
  /** Tools whose calls and results are never masked, stubbed or dropped. */
  readonly exemptTools?: readonly string[];
}

/** How big the protected tail may get: the newest unit is always kept, older ones while they fit. */
export interface TailLimit {
  readonly maxTokens: number;
  readonly tokensOf: (message: Message) => number;
  /**
   * Tool outputs larger than this are never protected verbatim, even in the tail: `clip`
   * shortens them head+tail (the original stays in the store). Pinned and exempt ones stay.
   */
  readonly maxToolTokens?: number;
}

/** Whether a user message is a real user turn (not a tool result carrier or a chatfold insert). */
export function isUserTurn(message: Message): boolean {
  return message.role === 'user' && chatfoldMetadata(message) === undefined;
}

/**
 * Ids of protected messages (STR-8): system prompt(s), the first user message (the goal, when
 * kept), the latest user turn, the recent tail (whole units), pinned messages and exempt tools' groups.
 */
export function protectedIds(
  messages: readonly Message[],
  units: readonly MessageUnit[],
  {
    keepRecent = 0,
    keepFirstUser = true,
    keepLatestTurn = true,
    pinnedIds = [],
    exemptTools = [],
  }: ProtectOptions = {},
  tailLimit?: TailLimit,
): Set<string> {
  const ids = new Set<string>(pinnedIds);
  const exempt = new Set(exemptTools);
  const firstUser = keepFirstUser ? messages.findIndex(isUserTurn) : -1;
  let lastUser = -1;
  for (let i = messages.length - 1; keepLatestTurn && i >= 0; i--) {
    if (isUserTurn(messages[i] as Message)) {
      lastUser = i;
      break;
    }
  }
  let tailStart = messages.length;
  let tailTokens = 0;
  for (let u = units.length - 1; u >= 0 && messages.length - tailStart < keepRecent; u--) {
    const unit = units[u] as MessageUnit;
    if (tailLimit !== undefined) {
      let unitTokens = 0;
      for (let i = unit.start; i < unit.end; i++) unitTokens += tailLimit.tokensOf(messages[i] as Message);
      // The newest unit is always protected; older ones only while the tail stays small.
      if (tailStart < messages.length && tailTokens + unitTokens > tailLimit.maxTokens) break;
      tailTokens += unitTokens;
    }
    tailStart = unit.start;
  }
  for (const unit of units) {
    let keepUnit = unit.start >= tailStart;
    for (let i = unit.start; i < unit.end && !keepUnit; i++) {
      const message = messages[i] as Message;
      const record = chatfoldMetadata(message);
      keepUnit =
        (message.role === 'system' && record === undefined) ||
        i === firstUser ||
        i === lastUser ||
        message.pinned === true ||
        ids.has(message.id) ||
        (exempt.size > 0 &&
          message.parts.some(
            (part) =>
              (part.type === 'tool-call' && exempt.has(part.name)) ||
              (part.type === 'tool-result' && part.toolName !== undefined && exempt.has(part.toolName)),
          ));
    }
    if (!keepUnit) continue;
    for (let i = unit.start; i < unit.end; i++) {
      const message = messages[i] as Message;
      const isOversizedOutput =
        tailLimit?.maxToolTokens !== undefined &&
        message.role === 'tool' &&
        message.pinned !== true &&
        !pinnedIds.includes(message.id) &&
        !message.parts.some(
          (part) => part.type === 'tool-result' && part.toolName !== undefined && exempt.has(part.toolName),
        ) &&
        tailLimit.tokensOf(message) > tailLimit.maxToolTokens;
      if (!isOversizedOutput) ids.add(message.id);
    }
  }
  return ids;
}
