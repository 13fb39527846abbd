import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeProviderServer,
  isSummaryRequest,
  startFakeProvider,
} from '../../src/fake-provider/index.ts';
import { fromOpenAI } from '../../src/messages/openai.ts';
import { fixture, runChatfold } from './run-chatfold.ts';

describe('chatfold replay --summarizer provider:model (SUM-5, CLI-3)', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await startFakeProvider();
  });
  afterAll(() => server.close());

  it('summarizes through an OpenAI-compatible server and keeps every invariant', async () => {
    const run = await runChatfold(
      [
        'replay',
        fixture('claude-code/subagent.jsonl'),
        '--window',
        // The session peaks near 18,500 tokens: a window its default policy compacts in.
        '24000',
        '--json',
        '--summarizer',
        'openai:gpt-4o-mini',
        '--summarizer-base-url',
        `${server.url}/v1`,
      ],
      { OPENAI_API_KEY: 'fake-key' },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.invariants).toEqual({ allFit: true, allValid: true, goalKept: true });
    const notes: string[] = report.compactions.flatMap((c: { stages: { notes: string[] }[] }) =>
      c.stages.flatMap((s) => s.notes),
    );
    expect(notes.some((note) => /summarized \d+ message\(s\) \(llm\)/.test(note))).toBe(true);
    const calls = server.requests.filter((r) => r.path === '/v1/chat/completions');
    expect(calls.length).toBe(report.totals.compactions);
    const body = calls[0]?.body as { model: string; messages: { role: string; content: string }[] };
    expect(body.model).toBe('gpt-4o-mini');
    expect(calls[0]?.headers.authorization).toBe('Bearer fake-key');
    expect(isSummaryRequest(fromOpenAI(body.messages as never))).toBe(true);
  });

  it('falls back to the extractive summary when the summarizer fails (RT-4)', async () => {
    server.reset();
    server.configure({ failAlways: { status: 503 } });
    const run = await runChatfold(
      [
        'replay',
        fixture('claude-code/subagent.jsonl'),
        '--window',
        // The session peaks near 18,500 tokens: a window its default policy compacts in.
        '24000',
        '--json',
        '--summarizer',
        'openai-compatible:llama3.2',
        '--summarizer-base-url',
        `${server.url}/v1`,
      ],
      {},
    );
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.invariants).toEqual({ allFit: true, allValid: true, goalKept: true });
    expect(JSON.stringify(report.compactions)).toContain('(extractive)');
    expect(server.requests.length).toBeGreaterThan(0);
  });
});
