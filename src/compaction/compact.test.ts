import { describe, expect, it, vi } from 'vitest';
import { DEFAULTS } from '../defaults.ts';
import type { Message } from '../messages/types.ts';
import { validate } from '../messages/validate.ts';
import { chatfoldMetadata } from '../projection/chatfold-metadata.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockSummarizer } from '../test/mock-summarizer.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { compact } from './compact.ts';
import { protectSettingsKeys } from './options.ts';
import type { CompactionEvent } from './types.ts';

const counter = createMockTokenCounter();

function agentRun(rounds: number): Message[] {
  const builder = buildConversation()
    .system('You are a coding agent.')
    .user('Fix the failing test in src/app.ts');
  for (let i = 0; i < rounds; i++) {
    builder.assistant(`Step ${i}: reading file ${i} to understand the failure in detail.`).toolRound([
      {
        name: 'Read',
        args: { file_path: `src/file${i}.ts` },
        result: `export const v${i} = ${i};\n`.repeat(60),
      },
      {
        name: 'Bash',
        args: { command: `npm test -- file${i}` },
        result: `FAIL src/file${i}.test.ts\nError: expected ${i}\n`.repeat(8),
      },
    ]);
  }
  return builder.user('Thanks, now run the whole test suite').build();
}

const options = { counter, window: 8000, responseReserve: 1000 } as const;

describe('compact (RT-1)', () => {
  it('leaves a conversation below the triggers untouched', async () => {
    const messages = agentRun(2);
    const result = await compact(messages, options);
    expect(result.messages).toBe(messages);
    expect(result.plan).toMatchObject({ compacted: false, reason: 'no trigger fired' });
  });

  it('compacts to the target when a trigger fires: fits, validates, keeps the goal and the latest turn', async () => {
    const messages = agentRun(20);
    const frozen = structuredClone(messages);
    const { messages: out, plan } = await compact(messages, options);
    expect(plan.compacted).toBe(true);
    // Over the budget: an automatic compaction that must fit (the reserve is guaranteed apart from triggers).
    expect(plan.mode).toBe('auto');
    expect(plan.reason).toMatch(/would eat into the answer's reserve/);
    expect(plan.tokensAfter).toBeLessThanOrEqual(plan.budget.messages);
    expect(plan.tokensAfter).toBe(counter.count(out).total);
    expect(validate(out)).toEqual([]);
    expect(out[0]).toEqual(messages[0]);
    expect(out[1]).toEqual(messages[1]);
    expect(out.at(-1)).toEqual(messages.at(-1));
    expect(messages).toEqual(frozen);
    expect(plan.stages.map((stage) => stage.stage)).toContain('summarize');
    expect(plan.summary?.ledger.filesRead).toContain('src/file0.ts');
    expect(plan.summary?.ledger.commands).toContain('npm test -- file0');
  });

  it('is deterministic without an LLM', async () => {
    const messages = agentRun(20);
    const a = await compact(messages, options);
    const b = await compact(messages, options);
    expect(b).toEqual(a);
  });

  it('a second compaction merges the first summary wherever it sits: one summary, cumulative coverage (SUM-2)', async () => {
    for (const policy of ['default', 'chat-app', 'rolling-summary'] as const) {
      const first = await compact(agentRun(10), { ...options, provider: 'openai', mode: 'manual', policy });
      const grown = [
        ...first.messages,
        ...agentRun(10)
          .slice(2)
          .map((m) => ({ ...m, id: `next_${m.id}` })),
      ];
      const second = await compact(grown, { ...options, provider: 'openai', mode: 'manual', policy });
      const summaries = second.messages.filter((m) => chatfoldMetadata(m)?.transform === 'summary');
      expect(summaries, policy).toHaveLength(1);
      expect(second.plan.summary?.covers.count, policy).toBeGreaterThan(
        first.plan.summary?.covers.count ?? 0,
      );
    }
  });

  it('places the summary as a system message for OpenAI and a user turn for Anthropic (SUM-7)', async () => {
    const messages = agentRun(20);
    for (const [provider, role] of [
      ['openai', 'system'],
      ['anthropic', 'user'],
    ] as const) {
      const { messages: out } = await compact(messages, { ...options, provider });
      const summary = out.find((m) => chatfoldMetadata(m)?.transform === 'summary');
      expect(summary?.role).toBe(role);
      expect(validate(out, { provider })).toEqual([]);
    }
  });

  it('runs beforeCompact/afterCompact hooks and emits start and end events (HK-1..3)', async () => {
    const events: CompactionEvent['type'][] = [];
    const afterCompact = vi.fn();
    const { plan } = await compact(agentRun(20), {
      ...options,
      mode: 'manual',
      hooks: {
        beforeCompact: () => ({
          customSummary: 'The user wants the failing test fixed; files 0-19 were read.',
        }),
        afterCompact,
      },
      onEvent: (event) => events.push(event.type),
    });
    expect(plan.summary?.text).toBe('The user wants the failing test fixed; files 0-19 were read.');
    expect(afterCompact).toHaveBeenCalledWith(
      expect.objectContaining({ compacted: true, summary: expect.objectContaining({ source: 'custom' }) }),
    );
    expect(events).toEqual(['compaction-start', 'compaction-end']);
  });

  it('honours cancel, but not on overflow (stateless: every call honours it; sessions cap cancels in a row)', async () => {
    const small = agentRun(8);
    const hooks = { beforeCompact: () => ({ cancel: true }) };
    const manual = { ...options, window: 100_000, mode: 'manual' as const, hooks };
    // No module-level state shared between callers: the cap on cancels in a row is a session's.
    for (let i = 0; i <= DEFAULTS.maxConsecutiveCancels; i++) {
      expect((await compact(small, manual)).plan.cancelled).toBe(true);
    }
    const overflow = await compact(agentRun(20), {
      ...options,
      hooks: { beforeCompact: () => ({ cancel: true }) },
    });
    expect(overflow.plan.compacted).toBe(true);
    expect(overflow.plan.warnings.join()).toMatch(/ignored/);
  });

  it('falls back to the extractive summary when the LLM summarizer fails (RT-4)', async () => {
    const summarizer = createMockSummarizer(new Error('503 upstream unavailable'));
    const { plan } = await compact(agentRun(20), { ...options, summarizer });
    expect(summarizer.calls).toHaveLength(1);
    expect(plan.summary?.source).toBe('extractive');
    expect(plan.stages.find((s) => s.stage === 'summarize')?.notes.join()).toMatch(
      /fell back to extractive: summarizer failed: 503/,
    );
    expect(plan.tokensAfter).toBeLessThanOrEqual(plan.budget.messages);
  });

  it('uses an LLM summary and passes it the structured prompt with the ledger', async () => {
    const summarizer = createMockSummarizer(
      'The agent read files 0-19 and ran their tests; file tests fail with expected-value errors.',
    );
    const { plan } = await compact(agentRun(20), { ...options, summarizer });
    expect(plan.summary?.text).toMatch(/^The agent read files/);
    expect(plan.summary?.source).toBe('llm');
    const prompt = summarizer.calls[0]?.prompt.user;
    expect(prompt).toContain('src/file3.ts');
    expect(prompt).toContain('## Files and changes');
    expect(summarizer.calls[0]?.ledger.commands).toContain('npm test -- file0');
  });

  it('rejects bad options and invalid input with typed errors', async () => {
    await expect(compact(agentRun(1), { counter })).rejects.toMatchObject({ code: 'E_INVALID_OPTIONS' });
    await expect(compact(agentRun(1), { ...options, target: 2 })).rejects.toMatchObject({
      code: 'E_INVALID_OPTIONS',
    });
    // The protect keys the type offers are exactly the ones accepted (the goal is a policy field).
    for (const key of protectSettingsKeys) {
      const value = key === 'keepRecent' ? 2 : [];
      await expect(compact(agentRun(1), { ...options, protect: { [key]: value } })).resolves.toBeDefined();
    }
    await expect(
      compact(agentRun(1), { ...options, protect: { keepFirstUser: false } as never }),
    ).rejects.toMatchObject({ code: 'E_INVALID_OPTIONS', message: expect.stringContaining('keepFirstUser') });
    // An unknown strategy fails when given, not only once a compaction is due.
    await expect(compact(agentRun(1), { ...options, strategy: 'nope' })).rejects.toMatchObject({
      code: 'E_UNKNOWN_STRATEGY',
    });
    await expect(compact(agentRun(20), { ...options, strategy: 'nope' })).rejects.toMatchObject({
      code: 'E_UNKNOWN_STRATEGY',
    });
    const orphan = agentRun(2).filter(
      (m) => m.role !== 'assistant' || !m.parts.some((p) => p.type === 'tool-call'),
    );
    await expect(compact(orphan, options)).rejects.toMatchObject({ code: 'E_INVALID_MESSAGES' });
  });

  it('resolves a model id from the registry and warns about unknown ones', async () => {
    const known = await compact(agentRun(1), { model: 'gpt-4o' });
    expect(known.plan.budget.window).toBe(128_000);
    expect(known.plan.tokenizer).toBe('openai:o200k_base');
    const unknown = await compact(agentRun(1), { model: 'my-local-model' });
    expect(unknown.plan.warnings.join()).toMatch(/unknown model "my-local-model"/);
  });

  it('compacts a history that contains empty messages instead of failing the request', async () => {
    const messages = buildConversation()
      .system('s')
      .user('goal')
      .assistant(' ')
      .user(' ')
      .assistant('x'.repeat(20_000))
      .user('last')
      .build();
    const { plan } = await compact(messages, {
      counter,
      window: 3000,
      responseReserve: 500,
      mode: 'manual',
    });
    expect(plan.tokensAfter).toBeLessThanOrEqual(plan.budget.messages);
  });
});
