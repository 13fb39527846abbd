import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FakeProviderServer } from '../../src/fake-provider/index.ts';
import { startFakeProvider } from '../../src/fake-provider/index.ts';
import { agentYaml, type ChatHome, chatHome, runChat } from './chat-fixtures.ts';

// `chatfold chat` for scripts (CLI-1, CLI-5): --print, piped stdin, one-line failures with exit 1,
// the example agents against the fake provider, and `chatfold agents` (AG-1).

let server: FakeProviderServer;
beforeAll(async () => {
  server = await startFakeProvider({});
});
afterAll(() => server.close());
afterEach(() => server.reset());

const EXAMPLES = new URL('../../examples/agents/', import.meta.url).pathname;

/** `--model` and `--base-url` for the fake provider. */
const fakeModel = (): string[] => ['--model', 'openai-compatible:gpt-4o', '--base-url', `${server.url}/v1`];

/** `chatfold ARGS` with piped `input` and extra `env` (see {@link runChat}). */
const chatfold = (
  home: ChatHome,
  args: readonly string[],
  options: { input?: string; env?: Record<string, string> } = {},
) => runChat(home, args, options.input, options.env);

describe('chatfold chat for scripts (CLI-1)', { timeout: 120_000 }, () => {
  it('--print runs one turn: the answer on stdout, tool lines on stderr', async () => {
    const home = chatHome();
    server.configure({
      script: {
        rules: [
          {
            match: { lastUserIncludes: 'count the lines', isSummary: false },
            steps: [
              { toolCalls: [{ name: 'search', arguments: { pattern: 'lazy dog 7\\d$' } }] },
              { text: 'There are ten such lines.' },
            ],
          },
        ],
      },
    });
    const run = await chatfold(home, [
      'chat',
      ...fakeModel(),
      '--workspace',
      home.workspace,
      '--store',
      home.store,
      '--print',
      'count the lines ending in 70 to 79',
    ]);
    expect(run).toMatchObject({ code: 0, stdout: 'There are ten such lines.\n' });
    expect(run.stderr).toMatch(/^ {2}⚙ search \. → \d+ chars\n$/);
    const session = run.saved?.session as string;
    expect(run.saved?.line).toBe(
      `Saved as session ${session} in sqlite ${home.store}; continue: chatfold chat --session ${session} --workspace ${home.workspace} --store ${home.store} --model openai-compatible:gpt-4o --base-url ${server.url}/v1\n`,
    );
  });

  it('--recall offers chatfold_recall: the model reads back an earlier message from the full history', async () => {
    const home = chatHome();
    server.configure({
      script: {
        rules: [
          {
            match: { lastUserIncludes: 'what was the vault code', isSummary: false },
            steps: [
              { toolCalls: [{ name: 'chatfold_recall', arguments: { query: 'vault code is' } }] },
              { text: 'The vault code was 7291.' },
            ],
          },
        ],
      },
    });
    const base = ['chat', ...fakeModel(), '--store', home.store, '--session', 'recall', '--recall'];
    expect((await chatfold(home, [...base, '--new', '--print', 'note: the vault code is 7291'])).code).toBe(
      0,
    );
    const run = await chatfold(home, [...base, '--print', 'what was the vault code?']);
    expect(run).toMatchObject({ code: 0, stdout: 'The vault code was 7291.\n' });
    expect(run.stderr).toMatch(/⚙ chatfold_recall/);
    // The tool was offered, and its answer (read from the store) went back to the model.
    const body = server.requests.at(-1)?.body as {
      tools?: { function?: { name?: string } }[];
      messages: { role: string; content: unknown }[];
    };
    expect(body.tools?.map((tool) => tool.function?.name)).toContain('chatfold_recall');
    const answers = body.messages
      .filter((message) => message.role === 'tool')
      .map((message) => JSON.stringify(message.content));
    expect(answers.some((answer) => answer.includes('the vault code is 7291'))).toBe(true);
    // Without --recall (and without `recall: true` in an agent file) the tool is not offered.
    await chatfold(home, ['chat', ...fakeModel(), '--store', home.store, '--print', 'hello']);
    expect(JSON.stringify(server.requests.at(-1)?.body)).not.toContain('chatfold_recall');
  });

  it('piped stdin: one prompt per line, slash commands too, answered in order', async () => {
    const home = chatHome();
    const piped = ['chat', ...fakeModel(), '--store', home.store, '--session', 'piped'];
    const run = await chatfold(home, [...piped, '--new'], { input: 'first line\nsecond line\n/context\n' });
    expect(run.code).toBe(0);
    // The fake model echoes; the system prompt and two turns are in the history.
    expect(run.stdout).toMatch(/^first line\nsecond line\n\nContext Status\n {2}No summary yet\n/);
    // The default policy has no message-count trigger, and says so; its window trigger is shown.
    expect(run.stdout).toContain('  Messages: 5 (no message trigger)');
    expect(run.stdout).toContain('Policy: default');
    expect(run.stderr).toBe(
      `\nResume this session: chatfold chat --session piped --store ${home.store} --model openai-compatible:gpt-4o --base-url ${server.url}/v1\n`,
    );
    const again = await chatfold(home, [...piped, '--print', 'third']);
    expect(again).toMatchObject({ code: 0, stdout: 'third\n' });
    expect(again.stderr).toBe('\nResuming session piped\n5 messages in history (0 summarized)\n\n');
  });

  it('missing key, unknown provider, unreachable base URL, no model: one line on stderr, exit 1', async () => {
    const home = chatHome();
    const closed = await startFakeProvider({});
    const closedUrl = closed.url;
    await closed.close();
    const cases: [readonly string[], RegExp][] = [
      [
        ['chat', '--model', 'openai:gpt-4o', '--print', 'hi'],
        /^chatfold: no API key for openai: set OPENAI_API_KEY \(or use openai-compatible:MODEL with --base-url for a local server\) \[E_MISSING_API_KEY\]\n$/,
      ],
      [
        ['chat', '--model', 'anthropic:claude-sonnet-4-5', '--print', 'hi'],
        /^chatfold: no API key for anthropic: set ANTHROPIC_API_KEY \[E_MISSING_API_KEY\]\n$/,
      ],
      [
        ['chat', '--model', 'mistral:large', '--print', 'hi'],
        /^chatfold: model "mistral:large": expected provider:name with provider one of openai, anthropic, google, openai-compatible .*\[E_INVALID_OPTIONS\]\n$/,
      ],
      [
        [
          'chat',
          '--model',
          'openai-compatible:qwen2.5:32b',
          '--base-url',
          `${closedUrl}/v1`,
          '--print',
          'hi',
        ],
        new RegExp(
          `^chatfold: cannot reach ${closedUrl}/v1 \\(ECONNREFUSED\\); start the model server \\(ollama serve, llama-server, vllm serve, LM Studio\\) or fix --base-url \\[E_PROVIDER\\]\\n$`,
        ),
      ],
      [
        ['chat', '--model', 'openai-compatible:qwen2.5:32b', '--print', 'hi'],
        /^chatfold: openai-compatible needs a base URL: pass --base-url .*\[E_INVALID_OPTIONS\]\n$/,
      ],
      [
        ['chat', '--print', 'hi'],
        /^chatfold: no model: pass --model provider:name .*\[E_INVALID_OPTIONS\]\n$/,
      ],
      [['chat', 'nobody', '--print', 'hi'], /^chatfold: no agent named "nobody" in .*\[E_AGENT_FILE\]\n$/],
    ];
    for (const [args, expected] of cases) {
      const run = await chatfold(home, args, { env: { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' } });
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(run.stderr).toMatch(expected);
    }
  });

  it("the example agents load and run against the fake provider (seed 004's two, seed 000's reviewer)", async () => {
    const home = chatHome();
    server.configure({
      script: {
        rules: [
          {
            match: { systemIncludes: 'You review code', isSummary: false },
            steps: [
              { toolCalls: [{ name: 'list_directory', arguments: {} }] },
              { text: 'Reviewed: notes.md has typos.' },
            ],
          },
        ],
      },
    });
    const env = { OPENAI_API_KEY: 'test', ANTHROPIC_API_KEY: 'test' };
    const common = ['--base-url', `${server.url}/v1`, '--workspace', home.workspace, '--store', home.store];
    const quick = await chatfold(
      home,
      ['chat', path.join(EXAMPLES, 'quick_assistant.yaml'), ...common, '--print', 'hello quick'],
      { env },
    );
    expect(quick).toMatchObject({ code: 0, stdout: 'hello quick\n' });
    const researcher = await chatfold(
      home,
      ['chat', path.join(EXAMPLES, 'researcher.yaml'), ...common, '--print', 'hello researcher'],
      { env },
    );
    expect(researcher).toMatchObject({ code: 0, stdout: 'hello researcher\n' });
    const reviewer = await chatfold(
      home,
      ['chat', path.join(EXAMPLES, 'code_reviewer.yaml'), ...common, '--print', 'review please'],
      { env },
    );
    expect(reviewer).toMatchObject({ code: 0, stdout: 'Reviewed: notes.md has typos.\n' });
    expect(reviewer.stderr).toMatch(/ {2}⚙ list_directory \. → \d+ chars/);
    // Each spoke its provider's wire format: OpenAI chat completions, then Anthropic messages.
    const paths = server.requests.map((request) => request.path);
    expect(paths).toContain('/v1/chat/completions');
    expect(paths).toContain('/v1/messages');
    const reviewerRequest = server.requests.findLast((request) => request.path === '/v1/messages')?.body as {
      system?: unknown;
    };
    expect(JSON.stringify(reviewerRequest.system)).toContain('You review code.');
  });

  it('chatfold agents lists project and user agents, flags invalid ones, prints the JSON Schema', async () => {
    const home = chatHome();
    home.agent(
      'dev',
      agentYaml({
        name: 'dev',
        baseURL: 'http://localhost:11434/v1',
        window: 32_000,
        context: 'maxMessagesBeforeSummary: 10',
      }),
    );
    home.agent('bad', 'name: bad\nmodel: { provider: openai }\n');
    const list = await chatfold(home, ['agents']);
    expect(list.code).toBe(1);
    expect(list.stdout).toMatch(
      /^bad +project +INVALID: .*bad\.yaml:2:8 model\.name: expected a string, received nothing\n/m,
    );
    expect(list.stdout).toMatch(/^dev +project +openai-compatible:gpt-4o/m);
    const json = JSON.parse((await chatfold(home, ['agents', '--json'])).stdout) as {
      name: string;
      error?: string;
    }[];
    expect(json.map((entry) => [entry.name, entry.error === undefined])).toEqual([
      ['bad', false],
      ['dev', true],
    ]);
    const schema = await chatfold(home, ['agents', '--schema']);
    expect(JSON.parse(schema.stdout)).toEqual(
      JSON.parse(readFileSync(path.join(EXAMPLES, 'agent-file.schema.json'), 'utf8')),
    );
    writeFileSync(
      path.join(home.dir, '.chatfold', 'agents', 'bad.yaml'),
      'name: bad\nmodel: { provider: openai, name: gpt-4o }\n',
    );
    expect((await chatfold(home, ['agents'])).code).toBe(0);
    const help = await chatfold(home, ['--help']);
    expect(help.stdout).toMatch(/ chat \[options\] \[agent\] .*\n/);
    expect(help.stdout).toMatch(/ agents \[options\] .*\n/);
  });
});
