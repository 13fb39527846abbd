import { describe, expect, it } from 'vitest';
import type { Message } from '../messages/types.ts';
import { counterFor } from '../tokens/count-tokens.ts';
import { chatfoldMetadata } from './chatfold-metadata.ts';
import { clipMessage } from './clip-text.ts';

const counter = counterFor('anthropic:claude');
const long = 'The build failed in src/app.ts because the import was wrong. '.repeat(200);

describe('clipMessage', () => {
  it('clips a message to about the tokens asked and marks it clipped', () => {
    const message: Message = {
      id: 'm1',
      role: 'user',
      createdAt: '2026-01-01T00:00:00Z',
      parts: [{ type: 'text', text: long }],
    } as Message;
    const clipped = clipMessage(message, 200, counter);
    expect(counter.countMessage(clipped)).toBeLessThanOrEqual(260);
    expect(chatfoldMetadata(clipped)).toMatchObject({
      transform: 'clipped',
      originalTokens: counter.countMessage(message),
    });
    expect(clipMessage(message, 1_000_000, counter)).toBe(message);
  });

  it('a clipped summary stays a summary (issue 19: the next compaction must find and merge it)', () => {
    const summary: Message = {
      id: 'cf_summary_1',
      createdAt: '2026-01-01T00:00:00Z',
      role: 'user',
      parts: [{ type: 'text', text: `[chatfold summary of 30 earlier messages]\n${long}` }],
      metadata: {
        chatfold: {
          version: 1,
          transform: 'summary',
          text: long,
          ledger: {},
          source: 'extractive',
          covers: { firstId: 'a', lastId: 'b', count: 30 },
        },
      },
    } as unknown as Message;
    const clipped = clipMessage(summary, 300, counter);
    expect(counter.countMessage(clipped)).toBeLessThan(counter.countMessage(summary));
    expect(chatfoldMetadata(clipped)).toMatchObject({
      transform: 'summary',
      covers: { count: 30 },
      originalTokens: counter.countMessage(summary),
    });
  });
});
