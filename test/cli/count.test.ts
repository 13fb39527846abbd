import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  anthropicCountTokens,
  type FakeProviderServer,
  geminiCountTokens,
  startFakeProvider,
} from '../../src/fake-provider/index.ts';
import { conversationFixtures, fixture, runChatfold } from './run-chatfold.ts';

interface CountJson {
  model: string;
  tokenizer: string;
  exact: boolean;
  accuracy: string;
  format: string;
  total: number;
  messages: { index: number; role: string; tokens: number }[];
}

const countJson = async (...args: string[]): Promise<CountJson> => {
  const run = await runChatfold(['count', ...args, '--json']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as CountJson;
};

const tmp = (name: string, content: string): string => {
  const path = join(mkdtempSync(join(tmpdir(), 'chatfold-count-')), name);
  writeFileSync(path, content);
  return path;
};

describe('chatfold count on every recorded session (CLI-2)', () => {
  const files = [...conversationFixtures('claude-code'), ...conversationFixtures('swe-agent')];

  it('has the recorded sessions to count', () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
  });

  it.each(files.map((file) => [file.replace(/.*fixtures\//, ''), file]))(
    '%s: per-message and total tokens',
    async (_name, file) => {
      const result = await countJson(file);
      expect(Object.keys(result)).toEqual([
        'model',
        'tokenizer',
        'exact',
        'accuracy',
        'format',
        'total',
        'messages',
      ]);
      expect(result.messages.length).toBeGreaterThan(0);
      result.messages.forEach((message, index) => {
        expect(message.index).toBe(index);
        expect(['system', 'user', 'assistant', 'tool']).toContain(message.role);
        expect(Number.isInteger(message.tokens) && message.tokens > 0).toBe(true);
      });
      const sum = result.messages.reduce((total, message) => total + message.tokens, 0);
      // The total adds only the prompt's fixed overhead (reply priming) to the messages.
      expect(result.total - sum).toBeGreaterThanOrEqual(0);
      expect(result.total - sum).toBeLessThan(10);
      if (file.includes('claude-code')) {
        expect(result).toMatchObject({
          format: 'claude-code',
          model: 'claude-sonnet-4-6',
          tokenizer: 'anthropic:claude',
          exact: false,
          accuracy: 'calibrated',
        });
      } else {
        expect(result).toMatchObject({ model: 'gpt-4o', tokenizer: 'openai:o200k_base', exact: true });
      }
    },
  );

  it('a SWE-agent trajectory and its OpenAI history count the same', async () => {
    const traj = await countJson(fixture('swe-agent/marshmallow-1867.function-calling.traj'));
    const history = await countJson(fixture('swe-agent/marshmallow-1867.function-calling.openai.json'));
    expect(traj.format).toBe('swe-agent');
    expect(history.format).toBe('openai');
    expect(traj.messages).toEqual(history.messages);
    expect(traj.total).toBe(history.total);
  });
});

describe('chatfold count formats and models (CLI-2)', () => {
  it('counts the OpenAI cookbook example exactly as the API reported (TOK-2)', async () => {
    const file = fixture('tokens/openai-cookbook-messages.json');
    expect((await countJson(file, '--model', 'gpt-4o')).total).toBe(124);
    expect((await countJson(file, '--model', 'gpt-4-0613')).total).toBe(129);
    expect((await countJson(file, '--model', 'openai/gpt-3.5-turbo')).total).toBe(129);
  });

  it('detects Anthropic, Gemini and chatfold JSONL, and --format forces a format', async () => {
    expect(await countJson(fixture('converters/anthropic-tool-use.json'))).toMatchObject({
      format: 'anthropic',
      model: 'claude-sonnet-4-6',
    });
    expect(await countJson(fixture('converters/gemini-function-calling.json'))).toMatchObject({
      format: 'gemini',
      model: 'gemini-2.5-pro',
      tokenizer: 'google:gemini',
    });
    const jsonl = tmp(
      'neutral.jsonl',
      [
        {
          id: 'a',
          role: 'user',
          parts: [{ type: 'text', text: 'hello there' }],
          createdAt: '2026-01-01T00:00:00Z',
        },
        {
          id: 'b',
          role: 'assistant',
          parts: [{ type: 'text', text: 'hi' }],
          createdAt: '2026-01-01T00:00:01Z',
        },
      ]
        .map((m) => JSON.stringify(m))
        .join('\n'),
    );
    const neutral = await countJson(jsonl, '--model', 'gpt-4o');
    expect(neutral).toMatchObject({ format: 'chatfold', exact: true });
    expect(neutral.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const forced = await runChatfold(['count', jsonl, '--format', 'anthropic']);
    expect(forced.code).toBe(1);
    expect(forced.stderr).toMatch(/^chatfold: .*\[E_INVALID_FORMAT\]\n$/);
  });

  it('prints a per-message table and a total line', async () => {
    const run = await runChatfold(['count', fixture('claude-code/short.jsonl')]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^#\s+role\s+tokens\s+content$/);
    expect(lines[1]).toMatch(/^0\s+user\s+\d+\s+mix phx\.server doesnt seem to start$/);
    expect(lines.at(-1)).toMatch(
      /^5 messages, [\d,]+ tokens \(calibrated, anthropic:claude, model claude-sonnet-4-6, format claude-code\)$/,
    );
  });

  it('an unknown model counts with the conservative default and warns on stderr, stdout stays JSON', async () => {
    const run = await runChatfold([
      'count',
      fixture('claude-code/short.jsonl'),
      '--model',
      'acme-7b',
      '--json',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^chatfold: warning: unknown model "acme-7b"/);
    expect(JSON.parse(run.stdout)).toMatchObject({
      model: 'acme-7b',
      tokenizer: 'chars/4',
      accuracy: 'approximate',
    });
  });

  it('uses a model from --registry FILE', async () => {
    const registry = tmp(
      'models.json',
      JSON.stringify([
        { id: 'house-gpt', provider: 'acme', contextWindow: 50_000, tokenizer: 'openai:o200k_base' },
      ]),
    );
    const run = await runChatfold([
      'count',
      fixture('tokens/openai-cookbook-messages.json'),
      '--model',
      'house-gpt',
      '--registry',
      registry,
      '--json',
    ]);
    expect(run.stderr).toMatch(/do not publish the max output of "house-gpt"/);
    expect(JSON.parse(run.stdout)).toMatchObject({ model: 'house-gpt', total: 124, exact: true });
  });

  it('fails with a message on stderr and a non-zero exit (CLI-5)', async () => {
    const missing = await runChatfold(['count', '/does/not/exist.json']);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toBe('chatfold: cannot read /does/not/exist.json: ENOENT [E_FILE]\n');
    const empty = await runChatfold(['count', tmp('empty.json', '  \n')]);
    expect(empty.stderr).toBe('chatfold: the file is empty [E_INVALID_FORMAT]\n');
    const garbage = await runChatfold(['count', tmp('x.json', '{"not": "a conversation"}')]);
    expect(garbage.code).toBe(1);
    expect(garbage.stderr).toMatch(
      /could not recognise the conversation format.*pass --format.*\[E_INVALID_FORMAT\]/,
    );
    const notJson = await runChatfold(['count', fixture('claude-code/LICENSE')]);
    expect(notJson.stderr).toMatch(/^chatfold: not valid JSON or JSONL: .*\[E_INVALID_FORMAT\]\n$/);
    const badFormat = await runChatfold(['count', fixture('claude-code/short.jsonl'), '--format', 'yaml']);
    expect(badFormat.code).not.toBe(0);
    expect(badFormat.stderr).toMatch(
      /expected one of openai, anthropic, gemini, .*swe-agent, received "yaml"/,
    );
    const badRegistry = await runChatfold([
      'count',
      fixture('claude-code/short.jsonl'),
      '--registry',
      tmp('r.json', '[{"id": "x", "provider": "p", "contextWindow": 0}]'),
    ]);
    expect(badRegistry.code).toBe(1);
    expect(badRegistry.stderr).toMatch(/r\.json: \[0\]\.contextWindow: .*\[E_INVALID_FORMAT\]/);
  });
});

describe('chatfold count --exact through the provider count endpoints (TOK-4)', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await startFakeProvider({ routes: [anthropicCountTokens, geminiCountTokens] });
  });
  beforeEach(() => server.reset());
  afterAll(() => server.close());

  const anthropicEnv = () => ({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url });

  it('Anthropic: the endpoint total is the exact total', async () => {
    server.configure({ countTokens: () => 4321 });
    const run = await runChatfold(
      ['count', fixture('claude-code/short.jsonl'), '--exact', '--json'],
      anthropicEnv(),
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({
      exact: true,
      total: 4321,
      tokenizer: 'anthropic:count_tokens',
    });
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/messages/count_tokens']);
    expect(server.requests[0]?.body).toMatchObject({ model: 'claude-sonnet-4-6' });
  });

  it('Anthropic: a failing endpoint falls back to the local estimate with a warning', async () => {
    server.configure({ failAlways: { status: 529 } });
    const run = await runChatfold(
      ['count', fixture('claude-code/short.jsonl'), '--exact', '--json'],
      anthropicEnv(),
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^chatfold: warning: --exact: the anthropic count endpoint failed \(529 .*overloaded_error/,
    );
    expect(JSON.parse(run.stdout)).toMatchObject({
      exact: false,
      accuracy: 'calibrated',
      tokenizer: 'anthropic:claude',
    });
  });

  it('Gemini: counts through models.countTokens', async () => {
    server.configure({ countTokens: () => 777 });
    const run = await runChatfold(
      ['count', fixture('converters/gemini-function-calling.json'), '--exact', '--json'],
      {
        GEMINI_API_KEY: 'g-key',
        GOOGLE_GEMINI_BASE_URL: server.url,
      },
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ exact: true, total: 777, model: 'gemini-2.5-pro' });
    expect(server.requests[0]?.path).toMatch(/\/models\/gemini-2\.5-pro:countTokens$/);
  });

  it('without an API key it says which variable to set and counts locally, sending nothing', async () => {
    const run = await runChatfold(['count', fixture('claude-code/short.jsonl'), '--exact', '--json'], {
      ANTHROPIC_API_KEY: '',
      ANTHROPIC_BASE_URL: server.url,
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'chatfold: warning: --exact: set ANTHROPIC_API_KEY to count through the Anthropic API; counted locally\n',
    );
    expect(JSON.parse(run.stdout)).toMatchObject({ exact: false, accuracy: 'calibrated' });
    const gemini = await runChatfold(
      ['count', fixture('converters/gemini-function-calling.json'), '--exact'],
      {
        GEMINI_API_KEY: '',
        GOOGLE_API_KEY: '',
        GOOGLE_GEMINI_BASE_URL: server.url,
      },
    );
    expect(gemini.stderr).toMatch(/set GEMINI_API_KEY/);
    expect(server.requests).toHaveLength(0);
  });

  it('models without a count endpoint count locally (already exact for OpenAI)', async () => {
    const run = await runChatfold([
      'count',
      fixture('tokens/openai-cookbook-messages.json'),
      '--exact',
      '--json',
    ]);
    // Said, not silently ignored (issue 9 §4); stdout stays the JSON.
    expect(run.stderr).toBe(
      'chatfold: note: --exact: openai has no count-tokens endpoint; the local openai:o200k_base count is already exact\n',
    );
    expect(JSON.parse(run.stdout)).toMatchObject({ exact: true, total: 124 });
    expect(server.requests).toHaveLength(0);
  });
});
