import type { Message } from '../messages/types.ts';
import type { TokenCounter } from './types.ts';

/**
 * Tokens of the longest common prefix of two prompts, by message identity (RT-5): what a
 * provider's prompt cache can reuse when `next` is sent after `previous`.
 */
export function sharedPrefixTokens(
  previous: readonly Message[],
  next: readonly Message[],
  counter: TokenCounter,
): number {
  let tokens = 0;
  for (let i = 0; i < Math.min(previous.length, next.length) && previous[i] === next[i]; i++) {
    tokens += counter.countMessage(next[i] as Message);
  }
  return tokens;
}
