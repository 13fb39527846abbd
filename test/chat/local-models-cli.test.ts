import { afterEach, describe, expect, it } from 'vitest';
import { startUsageServer, type UsageServer } from '../agent/usage-server.ts';
import { chatHome, localModel, runChat } from './chat-fixtures.ts';

// Issue 18, items 1 and 3, from the outside: `chatfold chat` against an OpenAI-compatible server
// that is not chatfold's fake provider. An unknown model warns once (terminal, and stderr with
// --print) naming the window it assumed and how to set it; a server reporting fresh tokens only
// is noticed and `/context` says the counts are local.

const chatfold = runChat;

let server: UsageServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const UNKNOWN_MODEL_WARNING = (model: string) =>
  `! unknown model "${model}": assuming a context window of 8,192 tokens. Set the real one with model.maxInputTokens in the agent file, or --window on the command line.\n`;

describe('unknown models warn once (issue 18 item 3)', { timeout: 60_000 }, () => {
  it.each(['my-local-model-xyz', 'qwen2.5:32b'])(
    '--print with %s: the warning on stderr, the answer on stdout',
    async (model) => {
      server = await startUsageServer({ shape: 'ollama', reporting: 'correct', answer: 'Hello there.' });
      const home = chatHome();
      const run = await chatfold(home, [
        'chat',
        ...localModel(server.baseURL, model),
        '--store',
        home.store,
        '--print',
        'hi',
      ]);
      expect(run).toMatchObject({ code: 0, stdout: 'Hello there.\n' });
      expect(run.stderr).toBe(UNKNOWN_MODEL_WARNING(model));
    },
  );

  it('--window or model.maxInputTokens sets the window: no warning', async () => {
    server = await startUsageServer({ shape: 'llama.cpp', reporting: 'correct', answer: 'Fine.' });
    const home = chatHome();
    const base = ['chat', '--base-url', server.baseURL, '--store', home.store, '--print', 'hi'];
    const withWindow = await chatfold(home, [
      ...base,
      '--model',
      'openai-compatible:my-local-model-xyz',
      '--window',
      '32k',
    ]);
    expect(withWindow).toMatchObject({ code: 0, stdout: 'Fine.\n', stderr: '' });
    home.agent(
      'local',
      `name: local\nmodel:\n  provider: openai-compatible\n  name: my-local-model-xyz\n  baseURL: ${server.baseURL}\n  maxInputTokens: 32768\n`,
    );
    const withFile = await chatfold(home, ['chat', 'local', '--store', home.store, '--print', 'hi']);
    expect(withFile).toMatchObject({ code: 0, stdout: 'Fine.\n', stderr: '' });
    const bad = await chatfold(home, [...base, '--model', 'openai-compatible:x', '--window', 'lots']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /^chatfold: --window "lots": expected the model's context window in tokens.*\[E_INVALID_OPTIONS\]\n$/,
    );
  });

  it('piped turns: the warning once, however many turns', async () => {
    server = await startUsageServer({ shape: 'vllm', reporting: 'correct', answer: 'Ok.' });
    const home = chatHome();
    const run = await chatfold(
      home,
      ['chat', ...localModel(server.baseURL, 'my-local-model-xyz'), '--store', home.store],
      'one\ntwo\nthree\n',
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Ok.\nOk.\nOk.\n');
    expect(run.stderr.split(UNKNOWN_MODEL_WARNING('my-local-model-xyz')).length).toBe(2);
  });
});

describe('a server that reports fresh tokens only (issue 18 item 1)', { timeout: 60_000 }, () => {
  it('is noticed once, and /context shows chatfold’s own count with a note', async () => {
    server = await startUsageServer({
      shape: 'ollama',
      reporting: 'fresh-only',
      answer: 'Noted, thank you.',
    });
    const home = chatHome();
    const turns = Array.from(
      { length: 5 },
      (_, i) => `Turn ${i}: ${'the roses along the fence need water and shade in summer; '.repeat(20)}`,
    );
    const run = await chatfold(
      home,
      ['chat', ...localModel(server.baseURL, 'qwen2.5:32b'), '--window', '32768', '--store', home.store],
      `${turns.join('\n')}\n/context\n`,
    );
    expect(run.code).toBe(0);
    const notices = run.stderr
      .split('\n')
      .filter((line) => line.includes('server reports fresh tokens only'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /^ {2}! server reports fresh tokens only; counting locally \(reported [\d,]+ input tokens, chatfold counts [\d,]+\)$/,
    );
    expect(run.stdout).toContain('  Note: server reports fresh tokens only; counting locally');
    const tokens = Number(/ {2}Tokens: {3}([\d,]+)/.exec(run.stdout)?.[1]?.replaceAll(',', ''));
    // What the server really holds for the last prompt, by its own tokenizer; the reported
    // number for it was a small fraction of that.
    const last = server.requests.at(-1);
    expect(last?.reportedTokens).toBeLessThan((last?.promptTokens ?? 0) / 4);
    expect(tokens).toBeGreaterThan((last?.promptTokens ?? 0) * 0.6);
  });
});

describe('the documents’ agent files run as written (issue 18 item 2)', { timeout: 60_000 }, () => {
  const examples = new URL('../../examples/agents/', import.meta.url).pathname;

  it('seed 004’s assistant.yaml has no model: --model gives it; without one, the error says so', async () => {
    server = await startUsageServer({ shape: 'ollama', reporting: 'correct', answer: 'Hi.' });
    const home = chatHome();
    const file = `${examples}designs/context-sprint/assistant.yaml`;
    const run = await chatfold(home, [
      'chat',
      file,
      ...localModel(server.baseURL, 'qwen2.5:32b'),
      '--window',
      '32768',
      '--store',
      home.store,
      '--print',
      'hello',
    ]);
    expect(run).toMatchObject({ code: 0, stdout: 'Hi.\n', stderr: '' });
    const piped = await chatfold(
      home,
      [
        'chat',
        file,
        ...localModel(server.baseURL, 'qwen2.5:32b'),
        '--window',
        '32768',
        '--store',
        home.store,
        '--session',
        's1',
        '--new',
      ],
      'hello\n/context\n',
    );
    // Seed 004's N and K from the file's snake_case keys.
    expect(piped.stdout).toContain('  Messages: 2 / 30 (7%)');
    expect(piped.stdout).toMatch(/ {2}Tokens: {3}[\d,]+ \/ 128,000 \(\d+%\)/);
    const none = await chatfold(home, ['chat', file, '--store', home.store, '--print', 'hello']);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      `chatfold: no model: ${file} has no model section; add one (model: { provider, name }) or pass --model provider:name (e.g. openai-compatible:qwen2.5:32b with --base-url) [E_INVALID_OPTIONS]\n`,
    );
  });

  it('the local-model design’s file (strategy: truncation, a 32,000-token window) runs against a local server', async () => {
    server = await startUsageServer({
      shape: 'llama.cpp',
      reporting: 'correct',
      answer: 'Hello from the local model.',
    });
    const home = chatHome();
    const file = `${examples}designs/local-models/local_assistant.yaml`;
    const run = await chatfold(home, [
      'chat',
      file,
      '--base-url',
      server.baseURL,
      '--store',
      home.store,
      '--print',
      'hi',
    ]);
    // No unknown-model warning: the file gives the window (max_context_tokens).
    expect(run).toMatchObject({ code: 0, stdout: 'Hello from the local model.\n', stderr: '' });
  });
});

describe('a local server that says its window (vLLM, llama.cpp): no assumption, no warning', {
  timeout: 60_000,
}, () => {
  it('vLLM’s max_model_len for the served model is the window', async () => {
    server = await startUsageServer({
      shape: 'vllm',
      reporting: 'correct',
      answer: 'Ok.',
      contextLength: 32_768,
    });
    const home = chatHome();
    const run = await chatfold(
      home,
      ['chat', ...localModel(server.baseURL, 'Qwen/Qwen2.5-32B-Instruct'), '--store', home.store],
      'hello\n/context\n',
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'context window 32,768 tokens, as the server reports (vLLM max_model_len); --window overrides it\n',
    );
    expect(run.stderr).not.toContain('unknown model');
    expect(run.stdout).toMatch(/openai-compatible:Qwen\/Qwen2\.5-32B-Instruct • [\d.k]+\/33k tokens/);
  });

  it('llama.cpp’s n_ctx is the window, whatever the registry says of the model name: requests stay inside it', async () => {
    server = await startUsageServer({
      shape: 'llama.cpp',
      reporting: 'correct',
      answer: 'Noted.',
      contextLength: 4096,
    });
    const home = chatHome();
    const turns = Array.from(
      { length: 14 },
      (_, i) => `Turn ${i}: ${'the roses along the fence need water and shade in summer; '.repeat(25)}`,
    );
    const run = await chatfold(
      home,
      ['chat', ...localModel(server.baseURL), '--store', home.store],
      `${turns.join('\n')}\n`,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('context window 4,096 tokens, as the server reports (llama.cpp n_ctx)');
    expect(Math.max(...server.requests.map((request) => request.promptTokens))).toBeLessThanOrEqual(4096);
    // --window wins over what the server says.
    const overridden = await chatfold(home, [
      'chat',
      ...localModel(server.baseURL),
      '--window',
      '3000',
      '--store',
      home.store,
      '--print',
      'hi',
    ]);
    expect(overridden.stderr).not.toContain('as the server reports');
  });

  it('Ollama’s loaded context_length is the window (what it truncates to, silently): no request over it, even fresh-only', async () => {
    server = await startUsageServer({
      shape: 'ollama',
      reporting: 'fresh-only',
      answer: 'Noted.',
      contextLength: 4096,
    });
    const home = chatHome();
    const turns = Array.from(
      { length: 14 },
      (_, i) => `Turn ${i}: ${'the roses along the fence need water and shade in summer; '.repeat(25)}`,
    );
    const run = await chatfold(
      home,
      ['chat', ...localModel(server.baseURL, 'qwen2.5:32b'), '--store', home.store],
      `${turns.join('\n')}\n`,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      'context window 4,096 tokens, as the server reports (Ollama context_length of the loaded model)',
    );
    expect(run.stderr).not.toContain('unknown model');
    expect(Math.max(...server.requests.map((request) => request.promptTokens))).toBeLessThanOrEqual(4096);
  });
});
