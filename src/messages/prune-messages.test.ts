/**
 * The Vercel AI SDK's `pruneMessages` test suite, ported (STR-9).
 *
 * Source: https://github.com/vercel/ai/blob/a2750db5731e780c554d964337c3e5ee8aaf3b16/packages/ai/src/generate-text/prune-messages.test.ts
 * (commit a2750db5731e780c554d964337c3e5ee8aaf3b16, Apache-2.0): its three fixtures and eight
 * cases. The fixtures are AI SDK `ModelMessage`s; each case converts them with `fromAiSdk`, prunes
 * the neutral messages and converts back with `toAiSdk`, and checks the result against the
 * case's expectation and against the real `pruneMessages` of the installed `ai` package (7.0.173,
 * whose 3785b2e change also drops reasoning that led only into pruned tool calls: the one
 * expectation that differs from that commit's snapshot, marked below).
 */
import { pruneMessages as aiSdkPruneMessages, convertToModelMessages, type ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { fromAiSdk } from './ai-sdk.ts';
import { type PruneMessagesOptions, pruneMessages } from './prune-messages.ts';
import { toAiSdk } from './to-ai-sdk.ts';

const messagesFixture1: ModelMessage[] = [
  { role: 'user', content: [{ type: 'text', text: 'Weather in Tokyo and Busan?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'I need to get the weather in Tokyo and Busan.' },
      { type: 'tool-call', toolCallId: 'call-1', toolName: 'get-weather-tool-1', input: '{"city": "Tokyo"}' },
      { type: 'tool-call', toolCallId: 'call-2', toolName: 'get-weather-tool-2', input: '{"city": "Busan"}' },
      { type: 'tool-approval-request', toolCallId: 'call-2', approvalId: 'approval-1' },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-approval-response', approvalId: 'approval-1', approved: true },
      {
        type: 'tool-result',
        toolCallId: 'call-1',
        toolName: 'get-weather-tool-1',
        output: { type: 'text', value: 'sunny' },
      },
      {
        type: 'tool-result',
        toolCallId: 'call-2',
        toolName: 'get-weather-tool-2',
        output: { type: 'error-text', value: 'Error: Fetching weather data failed' },
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'I have got the weather in Tokyo and Busan.' },
      { type: 'text', text: 'The weather in Tokyo is sunny. I could not get the weather in Busan.' },
    ],
  },
];

const messagesFixture2: ModelMessage[] = [
  { role: 'user', content: [{ type: 'text', text: 'Weather in Tokyo and Busan?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'I need to get the weather in Tokyo and Busan.' },
      { type: 'tool-call', toolCallId: 'call-1', toolName: 'get-weather-tool-1', input: '{"city": "Tokyo"}' },
      { type: 'tool-call', toolCallId: 'call-2', toolName: 'get-weather-tool-2', input: '{"city": "Busan"}' },
      { type: 'tool-approval-request', toolCallId: 'call-1', approvalId: 'approval-1' },
    ],
  },
];

const ask = (id: string, question: string, prefix: string) => ({
  type: 'tool-call' as const,
  toolCallId: id,
  toolName: 'AskUserQuestion',
  input: { question, options: [`${prefix} Option 1`, `${prefix} Option 2`, `${prefix} Option 3`] },
});
const answer = (id: string, value: string) => ({
  type: 'tool-result' as const,
  toolCallId: id,
  toolName: 'AskUserQuestion',
  output: { type: 'text' as const, value },
});
const multiTurnToolCallMessagesFixture: ModelMessage[] = [
  { role: 'user', content: [{ type: 'text', text: 'ask me a question' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'What can i help you with' },
      ask('toolu_01P9s4havAQSjDmS4eWT1N2V', 'What would you like help with today?', 'Tool 1'),
    ],
  },
  { role: 'tool', content: [answer('toolu_01P9s4havAQSjDmS4eWT1N2V', 'Something else')] },
  { role: 'assistant', content: [ask('toolu_01TMAuwWKLmBoQtx7K88dxsQ', 'Ok what else?', 'Tool 2')] },
  { role: 'tool', content: [answer('toolu_01TMAuwWKLmBoQtx7K88dxsQ', "Other - I'll describe it")] },
  { role: 'assistant', content: [{ type: 'text', text: 'What would you like to discuss or work on?' }] },
  { role: 'user', content: [{ type: 'text', text: 'never mind. lets end this conversation' }] },
  { role: 'assistant', content: [{ type: 'text', text: 'ok, have a nice day' }] },
  { role: 'user', content: [{ type: 'text', text: 'thank you' }] },
];

/** Prunes through chatfold and through the AI SDK; both must give `expected`. */
function both(messages: ModelMessage[], options: Omit<PruneMessagesOptions, 'messages'>, expected: unknown) {
  const ours = toAiSdk(pruneMessages({ messages: fromAiSdk(messages), ...options }));
  const theirs = aiSdkPruneMessages({
    messages: structuredClone(messages),
    ...(options as Omit<Parameters<typeof aiSdkPruneMessages>[0], 'messages'>),
  });
  expect(ours).toEqual(expected);
  expect(theirs).toEqual(expected);
}

// Fixture 1's messages with parts left out, as the expectations below list them.
const [user1, assistant1, tool1, final1] = messagesFixture1 as [
  ModelMessage & { content: unknown[] },
  ModelMessage & { content: unknown[] },
  ModelMessage & { content: unknown[] },
  ModelMessage & { content: unknown[] },
];
const pick = (message: ModelMessage & { content: unknown[] }, ...indexes: number[]) => ({
  ...message,
  content: indexes.map((i) => message.content[i]),
});

describe('pruneMessages ports the AI SDK suite (STR-9)', () => {
  it('reasoning all: should prune all reasoning parts', () => {
    both(messagesFixture1, { reasoning: 'all' }, [user1, pick(assistant1, 1, 2, 3), tool1, pick(final1, 1)]);
  });

  it('reasoning before-trailing-message: should prune the trailing message', () => {
    both(messagesFixture1, { reasoning: 'before-last-message' }, [
      user1,
      pick(assistant1, 1, 2, 3),
      tool1,
      final1,
    ]);
  });

  it('toolCalls all: should prune all tool calls, results, errors, and approvals', () => {
    // The snapshot at a2750db keeps `pick(assistant1, 0)` (reasoning only); ai 7.0.173 drops that
    // reasoning with the calls it led into, leaving the message empty.
    both(messagesFixture1, { toolCalls: 'all' }, [user1, final1]);
  });

  it('toolCalls before-last-message: should prune tool calls before last message', () => {
    both(messagesFixture2, { toolCalls: 'before-last-message' }, messagesFixture2);
  });

  it('toolCalls before-last-message: should prune tool calls and results from multi-turn conversation when last message has no tool calls', () => {
    const [u, a1, , , , a2, u2, a3, u3] = multiTurnToolCallMessagesFixture as (ModelMessage & {
      content: unknown[];
    })[];
    both(multiTurnToolCallMessagesFixture, { toolCalls: 'before-last-message' }, [
      u,
      pick(a1 as ModelMessage & { content: unknown[] }, 0),
      a2,
      u2,
      a3,
      u3,
    ]);
  });

  it('toolCalls before-last-2-messages: keeps calls whose results and approvals are in the tail', () => {
    both(messagesFixture1, { toolCalls: 'before-last-2-messages' }, messagesFixture1);
  });

  it('two tool settings: per-tool rules applied in order', () => {
    both(
      messagesFixture1,
      {
        toolCalls: [
          { type: 'all', tools: ['get-weather-tool-1'] },
          { type: 'before-last-2-messages', tools: ['get-weather-tool-2'] },
        ],
      },
      [user1, pick(assistant1, 0, 2, 3), pick(tool1, 0, 2), final1],
    );
  });

  it('selective tool pruning with approvals: prunes the approval response together with its request and tool-call', async () => {
    const messages = JSON.parse(
      JSON.stringify(
        await convertToModelMessages([
          { role: 'user', parts: [{ type: 'text', text: 'Weather in Tokyo and Busan?' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'step-start' },
              {
                type: 'tool-get-weather-tool-1',
                toolCallId: 'call-1',
                state: 'output-available',
                input: { city: 'Tokyo' },
                output: 'sunny',
              },
              {
                type: 'tool-get-weather-tool-2',
                toolCallId: 'call-2',
                state: 'output-available',
                input: { city: 'Busan' },
                output: 'rainy',
                approval: { id: 'approval-1', approved: true },
              },
            ],
          },
        ] as Parameters<typeof convertToModelMessages>[0]),
      ),
    ) as ModelMessage[];
    both(messages, { toolCalls: [{ type: 'all', tools: ['get-weather-tool-2'] }] }, [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Tokyo and Busan?' }] },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 'call-1',
            toolName: 'get-weather-tool-1',
            input: { city: 'Tokyo' },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call-1',
            toolName: 'get-weather-tool-1',
            output: { type: 'text', value: 'sunny' },
          },
        ],
      },
    ]);
  });

  it('selective tool pruning with approvals: drops unresolved approval responses', () => {
    const call = {
      type: 'tool-call',
      toolCallId: 'call-1',
      toolName: 'get-weather-tool-1',
      input: { city: 'Tokyo' },
    } as const;
    const result = {
      type: 'tool-result',
      toolCallId: 'call-1',
      toolName: 'get-weather-tool-1',
      output: { type: 'text', value: 'sunny' },
    } as const;
    const messages: ModelMessage[] = [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Tokyo and Busan?' }] },
      { role: 'assistant', content: [call] },
      {
        role: 'tool',
        content: [{ type: 'tool-approval-response', approvalId: 'unknown-approval', approved: true }, result],
      },
    ];
    both(messages, { toolCalls: [{ type: 'all', tools: ['get-weather-tool-2'] }] }, [
      messages[0],
      messages[1],
      { role: 'tool', content: [result] },
    ]);
  });
});
