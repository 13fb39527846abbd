import { describe, expect, it } from 'vitest';
import { runStoreConformance } from '../../../test/stores/conformance.ts';
import type { Message, Part } from '../../messages/types.ts';
import { memoryStore } from './memory-store.ts';

runStoreConformance('memory', async () => ({ store: memoryStore() }));

const message = (id: string, text: string): Message => ({
  id,
  role: 'user',
  createdAt: '',
  parts: [{ type: 'text', text }],
});

describe('memoryStore', () => {
  it('hands out copies: changing a returned row changes nothing stored', async () => {
    const store = memoryStore();
    const [row] = await store.append('s', [{ message: message('a', 'hi') }]);
    const part = row?.message.parts[0] as { text: string } | undefined;
    if (part !== undefined) part.text = 'changed';
    const [read] = await store.messages('s');
    if (read === undefined) throw new Error('expected the stored row');
    (read.message.parts as Part[]).push({ type: 'text', text: 'pushed on a read row' });
    expect((await store.messages('s'))[0]?.message.parts).toEqual([{ type: 'text', text: 'hi' }]);
    expect((await store.context('s')).tail[0]?.message.parts).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it('keeps its own copy at append: the caller changing its message later changes nothing', async () => {
    const store = memoryStore();
    const input = message('a', 'caf\u00e9 \u2192 \u{1F600}');
    await store.append('s', [{ message: input }]);
    (input.parts as Part[]).push({ type: 'text', text: 'later' });
    expect((await store.messages('s'))[0]?.message).toEqual(message('a', 'caf\u00e9 \u2192 \u{1F600}'));
  });

  it('records usage on a kept row and changes nothing else', async () => {
    const store = memoryStore();
    await store.append('s', [{ message: message('a', 'hi'), tokenEstimate: 3 }]);
    await store.recordUsage('s', 'a', { inputTokens: 12 });
    const [row] = await store.messages('s');
    expect(row).toMatchObject({ seq: 1, inputTokens: 12, tokenEstimate: 3, message: message('a', 'hi') });
  });
});
