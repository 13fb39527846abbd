import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/index.ts';
import { createAgent, recallAgentTool } from '../../src/agent/index.ts';
import type { Message } from '../../src/messages/types.ts';
import { createChatfold } from '../../src/session/create-chatfold.ts';
import { createMockLanguageModel, type MockLanguageModelCall } from '../../src/test/mock-language-model.ts';
import { createMockTokenCounter } from '../../src/test/mock-token-counter.ts';

// Issue 21, recall for chatfold/agent: with `recall: true` the agent offers chatfold_recall,
// and the model gets back, by id, what a summary replaced.

const textOf = (message: Message | undefined): string =>
  (message?.parts ?? [])
    .map((part) =>
      part.type === 'text'
        ? part.text
        : part.type === 'tool-result'
          ? part.content.map((inner) => (inner.type === 'text' ? inner.text : '')).join('')
          : '',
    )
    .join('');

/** A model that asks for the first ids a summary names when told "recall by id", and quotes the answer. */
function recallingModel() {
  return createMockLanguageModel((call: MockLanguageModelCall) => {
    const last = call.messages.at(-1);
    if (last?.role === 'tool') return { text: `recalled: ${textOf(last)}` };
    if (/recall by id/.test(textOf(last))) {
      const named = /\(ids ([^)\s]+)\)/.exec(call.messages.map(textOf).join('\n'));
      if (named !== null)
        return { toolCalls: [{ name: 'chatfold_recall', input: { ids: [named[1] as string] } }] };
      return { text: 'no ids named' };
    }
    return { text: `ok ${call.messages.length}` };
  });
}

async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const seen: AgentEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe('chatfold_recall in chatfold/agent', () => {
  it('recall: true offers the tool; the model asks for the ids a summary names and reads the originals', async () => {
    const model = recallingModel();
    const agent = await createAgent({
      model,
      summarizer: createMockLanguageModel('We talked about the quarter.'),
      recall: true,
      counter: createMockTokenCounter(),
      context: { maxMessagesBeforeSummary: 8 },
    });
    await collect(agent.run('Remember: the vault code is 7291.'));
    for (let i = 0; i < 8; i++) await collect(agent.run(`Question ${i} about the quarter.`));
    const events = await collect(agent.run('recall by id: what was the code?'));
    const call = events.find((event) => event.type === 'tool-call');
    expect(call).toMatchObject({
      toolName: 'chatfold_recall',
      input: { ids: [expect.stringMatching(/\.\./)] },
    });
    const result = events.find((event) => event.type === 'tool-result');
    expect(result).toMatchObject({ toolName: 'chatfold_recall', isError: false });
    expect(result?.type === 'tool-result' && result.output).toContain('Remember: the vault code is 7291.');
    expect(result?.type === 'tool-result' && result.output).toMatch(/\[#\d+ user id=\S+ summarized\]/);
    const text = events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : [])).join('');
    expect(text).toContain('the vault code is 7291');
    // The tool went to the model with its schema.
    const tools = model.calls.at(-1)?.options.tools ?? [];
    expect(tools.map((tool) => tool.name)).toContain('chatfold_recall');
  });

  it('is not offered unless asked for, and is a ready tool over any session', async () => {
    const model = recallingModel();
    const agent = await createAgent({ model, counter: createMockTokenCounter() });
    await collect(agent.run('Hello'));
    expect(model.calls.at(-1)?.options.tools ?? []).toEqual([]);

    const session = await createChatfold({ window: 100_000, counter: createMockTokenCounter() }).session('s');
    await session.append([
      { id: 'a1', role: 'user', parts: [{ type: 'text', text: 'the ferry leaves at 06:40' }] },
    ]);
    const tool = recallAgentTool(session);
    const controller = new AbortController();
    expect(await tool.execute({ ids: ['a1'] }, { signal: controller.signal, callId: 'c1' })).toBe(
      '[#1 user id=a1 in-context]\nthe ferry leaves at 06:40',
    );
  });
});
