import { readFileSync } from 'node:fs';
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { serverToolTurns } from '../../test/fixtures/converters/anthropic-server-tools.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { caughtError } from '../test/caught-error.ts';
import { type AnthropicMessage, type AnthropicRequest, fromAnthropic, toAnthropic } from './anthropic.ts';
import { importClaudeCode } from './claude-code.ts';
import type { Message } from './types.ts';

const read = (name: string): string =>
  readFileSync(new URL(`../../test/fixtures/${name}`, import.meta.url), 'utf8');
const toolUse = JSON.parse(read('converters/anthropic-tool-use.json')) as AnthropicRequest;
const docs = JSON.parse(read('converters/anthropic-docs.json')) as Record<
  string,
  AnthropicRequest | AnthropicMessage[]
>;
/** The documented tool_result variants answer the call of `anthropic-tool-use.json`. */
const answering = (turns: AnthropicMessage[]): AnthropicRequest => ({
  messages: [...toolUse.messages.slice(0, 2), ...turns],
});
const requests: Record<string, AnthropicRequest> = {
  toolUse,
  toolResultWithImages: answering(docs.toolResultWithImages as AnthropicMessage[]),
  emptyToolResult: answering(docs.emptyToolResult as AnthropicMessage[]),
  toolResultWithDocuments: answering(docs.toolResultWithDocuments as AnthropicMessage[]),
  toolExecutionError: answering(docs.toolExecutionError as AnthropicMessage[]),
  thinkingWithToolUse: docs.thinkingWithToolUse as AnthropicRequest,
  redactedThinking: docs.redactedThinking as AnthropicRequest,
  promptCaching: docs.promptCaching as AnthropicRequest,
};

const error = caughtError;

describe('fromAnthropic / toAnthropic round trips (MSG-2)', () => {
  it.each(Object.keys(requests))('gives back the documented request %s unchanged', (name) => {
    const request = requests[name] as AnthropicRequest;
    expect(toAnthropic(fromAnthropic(request))).toEqual(request);
  });

  it('is stable on real Claude Code turns (thinking with signatures, parallel tool use)', () => {
    for (const name of ['short.jsonl', 'tool_heavy.jsonl', 'subagent.jsonl']) {
      const once = toAnthropic(importClaudeCode(read(`claude-code/${name}`)).messages);
      expect(toAnthropic(fromAnthropic(once))).toEqual(once);
      // Turns alternate, and every user turn opens with its tool results.
      once.messages.forEach((turn, i) => {
        if (i > 0) expect(turn.role).not.toBe(once.messages[i - 1]?.role);
        if (Array.isArray(turn.content)) {
          const kinds = turn.content.map((block) => block.type === 'tool_result');
          expect(kinds).toEqual([...kinds].sort((a, b) => Number(b) - Number(a)));
        }
      });
    }
  });
});

describe('fromAnthropic mapping (MSG-1, MSG-2)', () => {
  it('splits a user turn into its tool results and the text after them, in order', () => {
    const messages = fromAnthropic({
      messages: [
        ...toolUse.messages.slice(0, 2),
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: '15 degrees' },
            { type: 'text', text: 'And in Paris?' },
          ],
        },
      ],
    });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(messages[1]?.parts[1]).toEqual({
      type: 'tool-call',
      id: 'toolu_01A09q90qw90lq917835lq9',
      name: 'get_weather',
      arguments: '{"location":"San Francisco, CA","unit":"celsius"}',
    });
    expect(messages[2]?.parts[0]).toMatchObject({
      callId: 'toolu_01A09q90qw90lq917835lq9',
      content: [{ text: '15 degrees' }],
    });
  });

  it('maps is_error, empty results, text documents and images in results', () => {
    const result = (name: string) => fromAnthropic(requests[name] as AnthropicRequest)[2]?.parts[0];
    expect(result('toolExecutionError')).toMatchObject({ isError: true });
    expect(result('emptyToolResult')).toMatchObject({ content: [] });
    expect(result('toolResultWithDocuments')).toMatchObject({
      content: [
        { type: 'text', text: 'The weather is' },
        { type: 'attachment', kind: 'file', mediaType: 'text/plain', data: 'MTUgZGVncmVlcw==', size: 10 },
      ],
    });
    expect(result('toolResultWithImages')).toMatchObject({
      content: [
        { type: 'text' },
        { type: 'attachment', kind: 'image', mediaType: 'image/jpeg', data: '/9j/4AAQSkZJRg...' },
      ],
    });
  });

  it('keeps thinking signatures and redacted thinking intact', () => {
    const [, assistant] = fromAnthropic(requests.redactedThinking as AnthropicRequest);
    expect(assistant?.parts).toMatchObject([
      {
        type: 'reasoning',
        text: 'Let me analyze this step by step...',
        signature: expect.stringMatching(/^WaUjzkyp/),
      },
      { type: 'reasoning', text: '', redactedData: expect.stringMatching(/^EmwKAhgB/) },
      { type: 'text', text: 'Based on my analysis...' },
    ]);
  });

  it('keeps cache_control in providerMetadata and the system blocks as blocks', () => {
    const [system] = fromAnthropic(requests.promptCaching as AnthropicRequest);
    expect(system?.role).toBe('system');
    expect(system?.parts[1]?.providerMetadata).toEqual({
      anthropic: { extra: { cache_control: { type: 'ephemeral' } } },
    });
  });

  it('carries server-tool blocks verbatim at their position, not as parts', () => {
    const messages = fromAnthropic({ messages: serverToolTurns });
    // The assistant turn of the docs: text and one client tool call are parts; its 14
    // server-tool blocks ride in providerMetadata.
    expect(messages[1]?.parts.map((p) => p.type)).toEqual(['text', 'text', 'tool-call']);
    expect(messages[1]?.providerMetadata?.anthropic?.opaque).toHaveLength(14);
    expect(toAnthropic(messages).messages).toEqual(serverToolTurns);
  });

  it('reads a system message inside messages and puts it back there', () => {
    const request: Anthropic.MessageParam[] = [
      { role: 'user', content: 'Hi' },
      { role: 'system', content: 'Answer in French from now on.' },
      { role: 'user', content: 'How are you?' },
    ];
    const messages = fromAnthropic({ messages: request });
    expect(messages.map((m) => m.role)).toEqual(['user', 'system', 'user']);
    expect(toAnthropic(messages)).toEqual({ messages: request });
  });
});

describe('toAnthropic from other formats (MSG-2)', () => {
  const at = '2026-01-01T00:00:00.000Z';

  it('sends system to `system`, merges same-role turns with tool results first', () => {
    const messages: Message[] = [
      ...buildConversation()
        .system('Be brief.')
        .user('Weather?')
        .toolRound([
          { name: 'get_weather', args: { city: 'Paris' }, result: '15C' },
          { name: 'get_weather', args: { city: 'Oslo' }, result: '4C', isError: true },
        ])
        .build(),
      { id: 'late', role: 'user', createdAt: at, parts: [{ type: 'text', text: 'Thanks' }] },
    ];
    // The user's "Thanks" arrives between the two results.
    const reordered = [...messages.slice(0, 4), messages[5] as Message, messages[4] as Message];
    expect(toAnthropic(reordered)).toEqual({
      system: [{ type: 'text', text: 'Be brief.' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'call_0', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_0', content: [{ type: 'text', text: '15C' }] },
            {
              type: 'tool_result',
              tool_use_id: 'call_1',
              content: [{ type: 'text', text: '4C' }],
              is_error: true,
            },
            { type: 'text', text: 'Thanks' },
          ],
        },
      ],
    });
  });

  it('drops unsigned reasoning, wraps non-object arguments, stands in for unreadable attachments', () => {
    const message: Message = {
      id: 'a',
      role: 'assistant',
      createdAt: at,
      parts: [
        { type: 'reasoning', text: 'from another provider' },
        { type: 'reasoning', text: 'signed', signature: 'sig' },
        { type: 'tool-call', id: 'c', name: 'apply_patch', arguments: '"*** Begin Patch"' },
      ],
    };
    const audio: Message = {
      id: 'u',
      role: 'user',
      createdAt: at,
      parts: [{ type: 'attachment', kind: 'file', mediaType: 'audio/mpeg', data: 'SUQz', size: 3 }],
    };
    expect(toAnthropic([audio, message]).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: '[file: audio/mpeg, 3 bytes]' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'signed', signature: 'sig' },
          { type: 'tool_use', id: 'c', name: 'apply_patch', input: { input: '*** Begin Patch' } },
        ],
      },
    ]);
    expect(toAnthropic([message], { reasoning: 'omit' }).messages[0]?.content).toHaveLength(1);
  });
});

describe('fromAnthropic rejects bad input with typed errors naming the path (MSG-4)', () => {
  it('unknown role', () => {
    const caught = error(() => fromAnthropic({ messages: [{ role: 'tool' as 'user', content: 'x' }] }));
    expect(caught.code).toBe('E_UNKNOWN_ROLE');
    expect(caught.message).toBe(
      'messages[0].role: unknown role "tool"; expected one of user, assistant, system',
    );
  });

  it('null content, unknown blocks, non-object input, missing ids, not a request', () => {
    const cases: [unknown, string][] = [
      [
        { messages: [{ role: 'user', content: null }] },
        'messages[0].content: expected string or array, received null',
      ],
      [
        { messages: [{ role: 'user', content: [{ type: 'hologram' }] }] },
        'messages[0].content[0].type: unsupported Anthropic block "hologram"; expected one of text, image, document, tool_use, tool_result, thinking, redacted_thinking, server_tool_use, web_search_tool_result, web_fetch_tool_result, code_execution_tool_result, bash_code_execution_tool_result, text_editor_code_execution_tool_result, tool_search_tool_result, mcp_tool_use, mcp_tool_result, container_upload, search_result',
      ],
      [
        {
          messages: [
            { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: '{"a":1}' }] },
          ],
        },
        'messages[0].content[0].input: expected record, received string "{\\"a\\":1}"',
      ],
      [
        { messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }] },
        'messages[0].content[0].tool_use_id: expected string, received nothing (the field is missing)',
      ],
      [null, 'request: expected object, received null'],
    ];
    for (const [input, message] of cases) {
      const caught = error(() => fromAnthropic(input as never));
      expect(caught.code, message).toBe('E_INVALID_MESSAGE');
      expect(caught.message).toBe(message);
    }
  });
});
