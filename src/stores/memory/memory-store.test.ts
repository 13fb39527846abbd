import { describe, expect, it } from 'vitest';
import { runStoreConformance } from '../../../test/stores/conformance.ts';
import { memoryStore } from './memory-store.ts';

runStoreConformance('memory', async () => ({ store: memoryStore() }));

describe('memoryStore', () => {
  it('hands out copies: changing a returned row changes nothing stored', async () => {
    const store = memoryStore();
    const [row] = await store.append('s', [
      { message: { id: 'a', role: 'user', createdAt: '', parts: [{ type: 'text', text: 'hi' }] } },
    ]);
    const part = row?.message.parts[0] as { text: string } | undefined;
    if (part !== undefined) part.text = 'changed';
    expect((await store.messages('s'))[0]?.message.parts).toEqual([{ type: 'text', text: 'hi' }]);
  });
});
