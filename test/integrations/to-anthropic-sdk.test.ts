/**
 * MSG-2 end to end: what `toAnthropic` returns goes into the real `@anthropic-ai/sdk` client
 * as it is (no casts: this file type-checks only if the types agree), over real HTTP to the
 * fake provider, and arrives as sent.
 */
import Anthropic from '@anthropic-ai/sdk';
import { fromAnthropic, type Message, toAnthropic } from 'chatfold';
import { type FakeProviderServer, startFakeProvider } from 'chatfold/fake-provider';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mcpTurns, serverToolTurns } from '../fixtures/converters/anthropic-server-tools.ts';

let server: FakeProviderServer;
let anthropic: Anthropic;
beforeAll(async () => {
  server = await startFakeProvider();
  anthropic = new Anthropic({ apiKey: 'sk-ant-fake', baseURL: server.url, maxRetries: 0 });
});
beforeEach(() => server.reset());
afterAll(() => server.close());

const at = '2026-01-01T00:00:00.000Z';
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A history from Anthropic (every server tool) followed by attachments from elsewhere. */
const history = (): Message[] => [
  ...fromAnthropic({ system: 'Be brief.', messages: serverToolTurns }),
  {
    id: 'attachments',
    role: 'user',
    createdAt: at,
    parts: [
      { type: 'text', text: 'Here are the files.' },
      // An AI SDK-style file part whose type was not said: sent as the PNG its bytes are.
      { type: 'attachment', kind: 'file', mediaType: 'application/octet-stream', data: PNG },
      {
        type: 'attachment',
        kind: 'image',
        mediaType: 'image/bmp',
        data: 'Qk06AAAAAAA=',
        filename: 'scan.bmp',
      },
      {
        type: 'attachment',
        kind: 'file',
        mediaType: 'application/pdf',
        url: 'https://example.com/paper.pdf',
      },
      {
        type: 'attachment',
        kind: 'file',
        mediaType: 'text/markdown',
        data: 'IyBOb3Rlcwo=',
        filename: 'notes.md',
      },
    ],
  },
];

const lastBody = () => server.requests.at(-1)?.body as Record<string, unknown>;

describe('toAnthropic output through @anthropic-ai/sdk (MSG-2)', () => {
  it('messages.create and messages.countTokens take it as it is, and the API receives it unchanged', async () => {
    const request = toAnthropic(history());
    const message = await anthropic.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      ...request,
    });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
    expect(lastBody()).toEqual({ model: 'claude-sonnet-4-6', max_tokens: 256, ...request });
    // What chatfold made of the attachments, as the API received them.
    const turns = lastBody().messages as { content: unknown[] }[];
    expect(turns.at(-1)?.content.slice(-5)).toEqual([
      { type: 'text', text: 'Here are the files.' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      { type: 'text', text: '[image: scan.bmp, image/bmp]' },
      { type: 'document', source: { type: 'url', url: 'https://example.com/paper.pdf' } },
      {
        type: 'document',
        source: { type: 'text', media_type: 'text/plain', data: '# Notes\n' },
        title: 'notes.md',
      },
    ]);

    const counted = await anthropic.messages.countTokens({ model: 'claude-sonnet-4-6', ...request });
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(lastBody()).toEqual({ model: 'claude-sonnet-4-6', ...request });
  });

  it("beta.messages.create takes toAnthropic(…, { api: 'beta' }) with MCP connector blocks", async () => {
    const request = toAnthropic(fromAnthropic({ messages: mcpTurns }), { api: 'beta' });
    const message = await anthropic.beta.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 256,
      betas: ['mcp-client-2025-04-04'],
      ...request,
    });
    expect(message.type).toBe('message');
    const sent = server.requests.at(-1);
    expect(sent?.headers['anthropic-beta']).toBe('mcp-client-2025-04-04');
    expect(sent?.body).toEqual({ model: 'claude-sonnet-4-6', max_tokens: 256, ...request });
    expect(request.messages).toEqual(mcpTurns);
  });
});
