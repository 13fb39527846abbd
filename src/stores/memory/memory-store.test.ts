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
  it('hands out frozen rows: changing one throws and changes nothing stored', async () => {
    const store = memoryStore();
    const [row] = await store.append('s', [{ message: message('a', 'hi') }]);
    const part = row?.message.parts[0] as { text: string } | undefined;
    expect(() => {
      if (part !== undefined) part.text = 'changed';
    }).toThrow(TypeError);
    expect((await store.messages('s'))[0]?.message.parts).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it('keeps one copy of each message: every read hands out that same row, a changed caller object changes nothing', async () => {
    const store = memoryStore();
    const input = message('a', 'hi');
    const [appended] = await store.append('s', [{ message: input }]);
    (input.parts as Part[]).push({ type: 'text', text: 'later' });
    const [read] = await store.messages('s');
    const context = await store.context('s');
    expect(read).toBe(appended);
    expect(context.tail[0]).toBe(appended);
    expect(read?.message.parts).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it('records usage on a frozen row by replacing it', async () => {
    const store = memoryStore();
    await store.append('s', [{ message: message('a', 'hi') }]);
    await store.recordUsage('s', 'a', { inputTokens: 12 });
    const [row] = await store.messages('s');
    expect(row?.inputTokens).toBe(12);
    expect(Object.isFrozen(row)).toBe(true);
  });
});
