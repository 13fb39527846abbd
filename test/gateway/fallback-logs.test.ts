/**
 * Every fallback the gateway takes is an event, a log line and a metric (issue 21): a reply
 * another request of the same conversation got ahead of (`reply-not-recorded`), and the
 * fallbacks its sessions take (a summary that fell back to the extractive one) — with kinds,
 * counts and codes, never the reason's words or the conversation.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayEvent, type GatewayServer, startGateway } from '../../src/gateway/index.ts';
import { memoryStore } from '../../src/stores/memory/index.ts';
import { type GatewayProcess, spawnGateway } from './gateway-process.ts';
import { type OpenAIUpstream, startOpenAIUpstream } from './openai-upstream.ts';

let upstream: OpenAIUpstream | undefined;
let gateway: GatewayServer | undefined;
let cli: GatewayProcess | undefined;
afterEach(async () => {
  if (cli?.child.exitCode === null) cli.child.kill('SIGKILL');
  await gateway?.close({ drainMs: 1_000 });
  await upstream?.close();
  cli = gateway = upstream = undefined;
});

describe('fallbacks are logged', () => {
  it('chatfold gateway logs reply-not-recorded (two requests of one conversation at once) and counts it', async () => {
    // Both streams wait until both requests reached the upstream: both were appended first.
    let release = (): void => undefined;
    const both = new Promise<void>((resolve) => {
      release = resolve;
    });
    upstream = await startOpenAIUpstream({
      holdStream: () => {
        if ((upstream?.requests.length ?? 0) >= 2) release();
        return both;
      },
    });
    const store = join(mkdtempSync(join(tmpdir(), 'chatfold-fallbacks-')), 'gateway.db');
    cli = spawnGateway(['--upstream', `${upstream.url}/v1`, '--port', '0', '--store', store]);
    const url = await cli.ready();
    const openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'k', maxRetries: 0 });
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'the harbour master asked twice' },
    ];
    const read = async () => {
      let text = '';
      for await (const chunk of await openai.chat.completions.create({ model: 'm', messages, stream: true }))
        text += chunk.choices[0]?.delta.content ?? '';
      return text;
    };
    const answers = await Promise.all([read(), read()]);
    expect(answers.every((answer) => answer.startsWith('ack'))).toBe(true);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain('chatfold_gateway_fallbacks_total{kind="reply-not-recorded"} 1');
    cli.child.kill('SIGTERM');
    await cli.exit;
    const lines = cli
      .output()
      .stderr.split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.type === 'reply-not-recorded')).toEqual([
      {
        time: expect.any(String),
        source: 'chatfold-gateway',
        type: 'reply-not-recorded',
        sessionId: expect.any(String),
        reason: 'the session moved on',
      },
    ]);
    expect(cli.output().stderr).not.toContain('harbour');
  });

  it("a session's fallback (the summarizer failed, the extractive summary was used) is a session-fallback event without its words", async () => {
    upstream = await startOpenAIUpstream();
    const events: GatewayEvent[] = [];
    gateway = await startGateway({
      upstream: `${upstream.url}/v1`,
      store: memoryStore(),
      port: 0,
      config: { window: 2_000 },
      upstreamAuth: { type: 'passthrough' },
      summarizer: async () => {
        throw Object.assign(new Error('the lighthouse secret leaked into this message'), {
          code: 'E_PROVIDER',
        });
      },
      onEvent: (event) => events.push(event),
    });
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'k', maxRetries: 0 });
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [];
    for (let turn = 0; turn < 30; turn++) {
      messages.push({
        role: 'user',
        content: `Turn ${turn}: ${'tell me about the lighthouse again '.repeat(8)}`,
      });
      const completion = await openai.chat.completions.create({ model: 'm', messages });
      messages.push(completion.choices[0]?.message as OpenAI.Chat.Completions.ChatCompletionMessageParam);
    }
    const fallbacks = events.filter((event) => event.type === 'session-fallback');
    expect(fallbacks).toContainEqual({
      type: 'session-fallback',
      sessionId: expect.any(String),
      event: 'compaction-fallback',
      detail: { source: 'summarizer', stage: 'summarize', fallback: 'extractive' },
    });
    expect(JSON.stringify(fallbacks)).not.toContain('lighthouse');
  });
});
