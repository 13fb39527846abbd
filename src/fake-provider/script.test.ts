import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { fromOpenAI } from '../messages/openai.ts';
import type { FakeChatRequest } from './chat-turn.ts';
import { loadFakeScript } from './load-script.ts';
import { parseFakeScript } from './script.ts';
import { answerFromScript } from './script-respond.ts';

const errorOf = (fn: () => unknown): ChatfoldError => {
  try {
    fn();
  } catch (error) {
    if (ChatfoldError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ChatfoldError');
};

const call = (messages: Parameters<typeof fromOpenAI>[0]): FakeChatRequest => ({
  provider: 'openai',
  model: 'gpt-4o',
  messages: fromOpenAI(messages),
  tools: [],
  stream: false,
  promptTokens: 1,
  request: { method: 'POST', path: '/', query: new URLSearchParams(), headers: {}, body: {}, bodyBytes: 2 },
});

describe('parseFakeScript', () => {
  it('names the path of the first invalid field and what was expected', () => {
    const cases: [unknown, RegExp][] = [
      [[], /\(root\): .*expected object/],
      [{ rules: [{ reply: { text: 1 } }] }, /^s\.json: rules\[0\]\.reply\.text: .*expected string/],
      [{ rules: [{ reply: {}, steps: [{}] }] }, /rules\[0\]: expected exactly one of "reply" .* or "steps"/],
      [{ rules: [{ match: {} }] }, /rules\[0\]: expected exactly one of/],
      [{ rules: [{ match: { lastUserMatches: '(' }, reply: {} }] }, /lastUserMatches: expected a JavaScript/],
      [{ rules: [{ match: { lastUser: 'x' }, reply: {} }] }, /rules\[0\]\.match: .*lastUser/],
      [{ rules: [{ steps: [{ toolCalls: [{ arguments: {} }] }] }] }, /steps\[0\]\.toolCalls\[0\]\.name/],
      [{ rules: [{ reply: { error: { status: 200 } } }] }, /reply\.error\.status/],
      [{ rules: [{ reply: { delayMs: -1 } }] }, /reply\.delayMs/],
    ];
    for (const [value, message] of cases) {
      const error = errorOf(() => parseFakeScript(value, { source: 's.json' }));
      expect(error.code).toBe('E_INVALID_OPTIONS');
      expect(error.message).toMatch(message);
    }
  });

  it('accepts every documented field', () => {
    const script = {
      rules: [
        {
          match: {
            lastUserIncludes: 'a',
            lastUserMatches: '^a',
            systemIncludes: 's',
            hasTool: 't',
            isSummary: false,
            provider: 'openai',
            model: 'm',
          },
          steps: [
            { toolCalls: [{ id: 'call_1', name: 't', arguments: { x: 1 } }], delayMs: 1 },
            { text: 'done', usage: { inputTokens: 5, outputTokens: 2 }, chunkDelayMs: 3 },
          ],
          times: 2,
        },
        { reply: { error: { status: 429, message: 'slow down', retryAfter: 1 } } },
      ],
    };
    expect(parseFakeScript(script)).toBe(script);
  });
});

describe('answerFromScript', () => {
  it('answers the calls of one turn step by step, then no longer matches', () => {
    const script = parseFakeScript({
      rules: [{ match: { lastUserIncludes: 'go' }, steps: [{ text: 'first' }, { text: 'second' }] }],
    });
    const user = { role: 'user' as const, content: 'go' };
    const assistant = {
      role: 'assistant' as const,
      content: null,
      tool_calls: [{ id: 'c1', type: 'function' as const, function: { name: 't', arguments: '{}' } }],
    };
    const result = { role: 'tool' as const, tool_call_id: 'c1', content: 'ok' };
    expect(answerFromScript(script, call([user]))?.text).toBe('first');
    expect(answerFromScript(script, call([user, assistant, result]))?.text).toBe('second');
    expect(answerFromScript(script, call([user, assistant, result, assistant, result]))).toBeUndefined();
    // A new user turn starts at step 0 again.
    const next = [user, assistant, result, { role: 'assistant' as const, content: 'done' }, user];
    expect(answerFromScript(script, call(next))?.text).toBe('first');
  });

  it('honours times, then falls through to the next rule', () => {
    const script = parseFakeScript({
      rules: [{ reply: { text: 'once' }, times: 1 }, { reply: { text: 'always' } }],
    });
    const hi = call([{ role: 'user', content: 'hi' }]);
    expect([1, 2, 3].map(() => answerFromScript(script, hi)?.text)).toEqual(['once', 'always', 'always']);
  });
});

describe('loadFakeScript', () => {
  it('reads JSON and YAML, and says where a syntax error is', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatfold-script-'));
    const json = join(dir, 'script.json');
    await writeFile(json, JSON.stringify({ rules: [{ reply: { text: 'hi' } }] }));
    expect((await loadFakeScript(json)).rules).toHaveLength(1);
    const yaml = join(dir, 'script.yaml');
    await writeFile(yaml, 'rules:\n  - reply: { text: hi }\n');
    expect(await loadFakeScript(yaml)).toEqual({ rules: [{ reply: { text: 'hi' } }] });
    const badYaml = join(dir, 'bad.yml');
    await writeFile(badYaml, 'rules:\n  - reply: { text: hi\n');
    await expect(loadFakeScript(badYaml)).rejects.toMatchObject({
      code: 'E_INVALID_OPTIONS',
      message: expect.stringMatching(/bad\.yml:\d+:\d+: not valid YAML/),
    });
    const badJson = join(dir, 'bad.json');
    await writeFile(badJson, '{ rules: [] }');
    await expect(loadFakeScript(badJson)).rejects.toMatchObject({
      code: 'E_INVALID_OPTIONS',
      message: expect.stringMatching(/bad\.json: not valid JSON .*name the file \.yaml/),
    });
    await expect(loadFakeScript(join(dir, 'missing.json'))).rejects.toMatchObject({ code: 'E_FILE' });
    const wrong = join(dir, 'wrong.yaml');
    await writeFile(wrong, 'rules:\n  - reply: { txt: hi }\n');
    await expect(loadFakeScript(wrong)).rejects.toThrow(/wrong\.yaml: rules\[0\]\.reply: .*txt/);
  });
});
