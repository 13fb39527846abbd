import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { fromOpenAI } from '../../messages/openai.ts';
import type { Message } from '../../messages/types.ts';
import {
  fromLanguageModelPrompt,
  providerOfModel,
  toLanguageModelPrompt,
  toolDefinitions,
} from './language-model-prompt.ts';

const png = () => new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('language model prompt ↔ neutral messages', () => {
  it('gives back every LanguageModelV4Prompt part unchanged', () => {
    const prompt: LanguageModelV4Prompt = [
      {
        role: 'system',
        content: 'You are terse.',
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these.' },
          { type: 'file', mediaType: 'image', data: { type: 'data', data: png() } },
          {
            type: 'file',
            mediaType: 'application/pdf',
            data: { type: 'url', url: new URL('https://example.com/a.pdf') },
          },
          {
            type: 'file',
            mediaType: 'application/pdf',
            data: { type: 'reference', reference: { anthropic: 'file_01' } },
          },
          {
            type: 'file',
            mediaType: 'text/plain',
            filename: 'notes.txt',
            data: { type: 'text', text: 'notes' },
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          {
            type: 'reasoning',
            text: 'Both are PDFs.',
            providerOptions: { anthropic: { signature: 'c2ln' } },
          },
          { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: png() } },
          { type: 'custom', kind: 'openai.compaction', providerOptions: { openai: { itemId: 'cmp_1' } } },
          { type: 'text', text: 'Checking.' },
          {
            type: 'tool-call',
            toolCallId: 'ws_1',
            toolName: 'web_search',
            input: { query: 'x' },
            providerExecuted: true,
          },
          {
            type: 'tool-result',
            toolCallId: 'ws_1',
            toolName: 'web_search',
            output: { type: 'json', value: [{ url: 'https://example.com' }] },
          },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'render', input: { page: 1 } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'render',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'Page 1:' },
                { type: 'file', mediaType: 'image/png', data: { type: 'data', data: png() } },
                { type: 'custom', providerOptions: { anthropic: { kind: 'search_result' } } },
              ],
            },
          },
          { type: 'tool-approval-response', approvalId: 'ap1', approved: true },
        ],
      },
    ];
    const neutral = fromLanguageModelPrompt(prompt);
    expect(neutral.map((message) => message.parts.map((part) => part.type))).toEqual([
      ['text'],
      ['text', 'attachment', 'attachment', 'attachment', 'attachment'],
      ['reasoning', 'text', 'tool-call'],
      ['tool-result'],
    ]);
    expect(toLanguageModelPrompt(neutral, 'anthropic')).toEqual(prompt);
  });

  it('writes what chatfold or another format made in the forms a language model takes', () => {
    const neutral: Message[] = [
      ...fromOpenAI([
        {
          role: 'user',
          content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'shot', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'done' },
      ]),
    ];
    const withImage: Message = {
      ...(neutral[2] as Message),
      parts: [
        {
          type: 'tool-result',
          callId: 'c1',
          toolName: 'shot',
          content: [
            { type: 'text', text: 'screenshot:' },
            { type: 'attachment', kind: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
            {
              type: 'attachment',
              kind: 'file',
              mediaType: 'application/pdf',
              url: 'https://example.com/r.pdf',
            },
          ],
        },
      ],
    };
    const prompt = toLanguageModelPrompt([neutral[0] as Message, neutral[1] as Message, withImage], 'openai');
    expect(prompt[0]).toEqual({
      role: 'user',
      content: [{ type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } }],
    });
    expect(prompt[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'shot', input: {} }],
    });
    expect(prompt[2]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'shot',
          output: {
            type: 'content',
            value: [
              { type: 'text', text: 'screenshot:' },
              { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } },
              {
                type: 'file',
                mediaType: 'application/octet-stream',
                data: { type: 'url', url: new URL('https://example.com/r.pdf') },
              },
            ],
          },
        },
      ],
    });
  });

  it('turns string content into a text part (the prompt has no string form)', () => {
    const prompt = toLanguageModelPrompt(fromOpenAI([{ role: 'user', content: 'hi' }]), 'openai');
    expect(prompt).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });
});

describe('call context', () => {
  it('maps AI SDK provider ids to chatfold provider rules', () => {
    expect(
      [
        'openai.chat',
        'openai.responses',
        'azure.chat',
        'anthropic.messages',
        'vertex.anthropic.messages',
        'google.generative-ai',
        'google.vertex.chat',
        'fake.chat',
      ].map(providerOfModel),
    ).toEqual(['openai', 'openai', 'openai', 'anthropic', 'anthropic', 'gemini', 'gemini', undefined]);
  });

  it('counts function tools with their schema and provider tools by name', () => {
    expect(
      toolDefinitions([
        { type: 'function', name: 'read', description: 'Read a file', inputSchema: { type: 'object' } },
        { type: 'provider', id: 'openai.web_search', name: 'web_search', args: {} },
      ]),
    ).toEqual([
      { name: 'read', description: 'Read a file', parameters: { type: 'object' } },
      { name: 'web_search', parameters: {} },
    ]);
  });
});
