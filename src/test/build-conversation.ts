import type { Message, Part } from '../messages/types.ts';

/** A terse way to write neutral conversations in tests and examples. */
export interface ConversationBuilder {
  system(text: string): ConversationBuilder;
  user(text: string): ConversationBuilder;
  assistant(text: string): ConversationBuilder;
  /** An assistant message with one or more tool calls, then one tool message per result. */
  toolRound(
    calls: readonly { name: string; args: Record<string, unknown>; result: string; isError?: boolean }[],
  ): ConversationBuilder;
  build(): Message[];
}

/**
 * Builds a conversation with sequential ids (`m0`, `m1`, …), call ids (`call_0`, …) and
 * timestamps one second apart, so tests read like the conversation they describe.
 *
 * @example
 * const messages = buildConversation().system('Be brief.').user('Fix the bug').build();
 */
export function buildConversation(start = Date.UTC(2026, 0, 1)): ConversationBuilder {
  const messages: Message[] = [];
  let calls = 0;
  const push = (role: Message['role'], parts: Part[]): void => {
    messages.push({
      id: `m${messages.length}`,
      role,
      parts,
      createdAt: new Date(start + messages.length * 1000).toISOString(),
    });
  };
  const builder: ConversationBuilder = {
    system(text) {
      push('system', [{ type: 'text', text }]);
      return builder;
    },
    user(text) {
      push('user', [{ type: 'text', text }]);
      return builder;
    },
    assistant(text) {
      push('assistant', [{ type: 'text', text }]);
      return builder;
    },
    toolRound(round) {
      const ids = round.map(() => `call_${calls++}`);
      push(
        'assistant',
        round.map((call, i) => ({
          type: 'tool-call',
          id: ids[i] as string,
          name: call.name,
          arguments: JSON.stringify(call.args),
        })),
      );
      round.forEach((call, i) => {
        push('tool', [
          {
            type: 'tool-result',
            callId: ids[i] as string,
            toolName: call.name,
            content: [{ type: 'text', text: call.result }],
            ...(call.isError ? { isError: true } : {}),
          },
        ]);
      });
      return builder;
    },
    build: () => [...messages],
  };
  return builder;
}
