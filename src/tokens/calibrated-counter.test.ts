import { describe, expect, it } from 'vitest';
import type { Message, ToolDefinition } from '../messages/types.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createCalibratedTokenCounter } from './calibrated-counter.ts';
import { createTokenCounter } from './create-token-counter.ts';

const tools: ToolDefinition[] = [
  {
    name: 'read_file',
    description: 'Read a file of the workspace and return its whole content with line numbers.',
    parameters: { type: 'object', properties: { path: { type: 'string', description: 'relative path' } } },
  },
];

function prompt(): Message[] {
  return buildConversation()
    .system('You are a careful coding agent.')
    .user('Read src/a.ts')
    .toolRound([
      { name: 'read_file', args: { path: 'src/a.ts' }, result: 'export const a = 1;\n'.repeat(200) },
    ])
    .build();
}

describe('createCalibratedTokenCounter (TOK-5)', () => {
  it('compares reported input tokens with an estimate that includes the tool definitions', () => {
    const base = createTokenCounter({ tokenizer: 'openai:o200k_base' });
    const counter = createCalibratedTokenCounter(base);
    const messages = prompt();
    const truth = base.count(messages, { tools }).total; // what the provider would report
    counter.recordUsage(messages, { inputTokens: truth }, { tools });
    expect(counter.ratio).toBeCloseTo(1, 5);
    expect(counter.count(messages, { tools }).total).toBe(truth);
    expect(counter.count(messages).total).toBe(base.count(messages).total);
  });

  it('does not take a compacted prefix (same ids, stubbed content) for the reported one', () => {
    const base = createTokenCounter({ tokenizer: 'openai:o200k_base' });
    const counter = createCalibratedTokenCounter(base);
    const messages = prompt();
    counter.recordUsage(messages, { inputTokens: base.count(messages).total });
    const tool = messages[3] as Message;
    const stubbed: Message = {
      ...tool,
      parts: tool.parts.map((part) =>
        part.type === 'tool-result' ? { ...part, content: [{ type: 'text', text: '[superseded]' }] } : part,
      ),
      metadata: { chatfold: { transform: 'superseded' } },
    };
    const compacted = [...messages.slice(0, 3), stubbed];
    expect(counter.count(compacted).total).toBeLessThan(counter.count(messages).total / 2);
    // The same prompt again (new objects, same content, no transform) still extends the report.
    const appended = [
      ...messages.map((message) => ({ ...message })),
      ...buildConversation().user('next').build(),
    ];
    expect(counter.count(appended).total).toBeGreaterThan(counter.count(messages).total);
  });
});
