import { describe, expect, it } from 'vitest';
import { toAiSdk } from './to-ai-sdk.ts';
import type { Message } from './types.ts';

const messages: Message[] = [
  { id: 'u', role: 'user', parts: [{ type: 'text', text: 'why?' }], createdAt: '' },
  {
    id: 'a1',
    role: 'assistant',
    parts: [{ type: 'reasoning', text: 'thinking', signature: 'sig' }],
    createdAt: '',
  },
  {
    id: 'a2',
    role: 'assistant',
    parts: [
      { type: 'reasoning', text: 'more thinking' },
      { type: 'text', text: 'because' },
    ],
    createdAt: '',
  },
];

describe('toAiSdk reasoning option (MSG-2, issue 9 §3)', () => {
  it("reasoning 'omit' sends no turn for a reasoning-only message, not an empty one", () => {
    expect(toAiSdk(messages, { reasoning: 'omit' })).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'why?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'because' }] },
    ]);
  });

  it("reasoning 'auto' keeps every turn and its reasoning", () => {
    const out = toAiSdk(messages);
    expect(out.map((message) => message.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(out[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'thinking', providerOptions: { anthropic: { signature: 'sig' } } },
      ],
    });
  });
});
