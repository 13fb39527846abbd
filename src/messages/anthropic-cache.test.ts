import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compact } from '../compaction/compact.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { ANTHROPIC_MAX_BREAKPOINTS, withCacheBreakpoints } from './anthropic-cache.ts';
import type { AnthropicBlock, AnthropicRequest } from './anthropic-request.ts';
import { toAnthropic } from './to-anthropic.ts';

const marks = (request: AnthropicRequest & { tools?: readonly object[] }): string[] => {
  const out: string[] = [];
  const scan = (where: string, content: unknown): void => {
    if (!Array.isArray(content)) return;
    content.forEach((block: { cache_control?: unknown }, i) => {
      if (block.cache_control != null) out.push(`${where}[${i}]`);
    });
  };
  scan('system', request.system);
  request.messages.forEach((message, i) => {
    scan(`messages[${i}]`, message.content);
  });
  scan('tools', request.tools);
  return out;
};

async function compactedRequest(): Promise<AnthropicRequest> {
  const builder = buildConversation().system('You are an agent.').user('Goal: refactor the parser');
  for (let i = 0; i < 30; i++) {
    builder
      .toolRound([{ name: 'Read', args: { file_path: `src/f${i}.ts` }, result: 'code '.repeat(300) }])
      .assistant(`Read src/f${i}.ts. ${'analysis '.repeat(150)}`)
      .user(`next ${i}`);
  }
  const { messages } = await compact(builder.build(), {
    window: 20_000,
    provider: 'anthropic',
    mode: 'manual',
  });
  return toAnthropic(messages);
}

describe('withCacheBreakpoints (RT-5)', () => {
  it('marks the last tool, the system prompt, the summary and the newest message', async () => {
    const request = await compactedRequest();
    const before = JSON.stringify(request);
    const summaryIndex = request.messages.findIndex(
      (m) =>
        typeof m.content !== 'string' &&
        m.content.some((b) => b.type === 'text' && b.text.startsWith('[chatfold summary')),
    );
    expect(summaryIndex).toBeGreaterThanOrEqual(0);
    const marked = withCacheBreakpoints(request, {
      tools: [
        { name: 'Read', input_schema: {} },
        { name: 'Bash', input_schema: {} },
      ],
    });
    expect(JSON.stringify(request)).toBe(before); // not mutated
    const last = marked.messages.length - 1;
    expect(marks(marked).sort()).toEqual(
      [
        'system[0]',
        expect.stringMatching(new RegExp(`^messages\\[${summaryIndex}\\]\\[1\\]`)),
        expect.stringMatching(new RegExp(`^messages\\[${last}\\]`)),
        'tools[1]',
      ].sort(),
    );
    expect(marked.tools?.[1]).toMatchObject({ cache_control: { type: 'ephemeral' } });
  });

  it('keeps the marked prefix byte-identical when the conversation grows (RT-5)', async () => {
    const request = await compactedRequest();
    const longer: AnthropicRequest = {
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'more' },
      ],
    };
    const a = withCacheBreakpoints(request);
    const b = withCacheBreakpoints(longer);
    // Everything up to the previous newest message is the same, except that message's mark.
    const upTo = a.messages.length - 1;
    expect(JSON.stringify(b.system)).toBe(JSON.stringify(a.system));
    expect(JSON.stringify(b.messages.slice(0, upTo))).toBe(JSON.stringify(a.messages.slice(0, upTo)));
  });

  it('skips thinking blocks and empty text, turns string content into a block, honours ttl', () => {
    const request: AnthropicRequest = {
      system: 'sys',
      messages: [
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'answer' },
            { type: 'text', text: '' },
            { type: 'thinking', thinking: 't', signature: 's' },
          ],
        },
      ],
    };
    const marked = withCacheBreakpoints(request, { ttl: '1h' });
    expect(marked.system).toEqual([
      { type: 'text', text: 'sys', cache_control: { type: 'ephemeral', ttl: '1h' } },
    ]);
    expect((marked.messages[1]?.content as AnthropicBlock[] | undefined)?.[0]).toMatchObject({
      cache_control: { ttl: '1h' },
    });
    expect(() => withCacheBreakpoints(request, { ttl: '2h' as never })).toThrow(
      expect.objectContaining({ code: 'E_INVALID_OPTIONS' }),
    );
  });

  it('never exceeds four breakpoints, counting the caller’s own', () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        (premarked, withTools) => {
          const request: AnthropicRequest = {
            system: [{ type: 'text', text: 'sys' }],
            messages: premarked.map((isMarked, i) => ({
              role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
              content: [
                {
                  type: 'text' as const,
                  text: `m${i}`,
                  ...(isMarked ? { cache_control: { type: 'ephemeral' as const } } : {}),
                },
              ],
            })),
          };
          const own = premarked.filter(Boolean).length;
          const marked = withCacheBreakpoints(request, withTools ? { tools: [{ name: 't' }] } : {});
          const found = marks(marked);
          expect(found.length).toBeLessThanOrEqual(Math.max(own, ANTHROPIC_MAX_BREAKPOINTS));
          if (own < ANTHROPIC_MAX_BREAKPOINTS) expect(found.length).toBeGreaterThan(own);
          premarked.forEach((isMarked, i) => {
            if (isMarked) expect(found).toContain(`messages[${i}][0]`);
          });
        },
      ),
    );
  });
});
