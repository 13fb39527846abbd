import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { Message } from '../messages/types.ts';
import { validate } from '../messages/validate.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { applyCompactionPlan } from './apply-plan.ts';
import { compact } from './compact.ts';
import { planCompaction } from './plan-compaction.ts';
import type { CompactionPlan } from './types.ts';

const counter = createMockTokenCounter();
const options = { counter, window: 8000, responseReserve: 1000 } as const;

function agentRun(rounds: number): Message[] {
  const builder = buildConversation().system('You are a coding agent.').user('Fix the failing test');
  for (let i = 0; i < rounds; i++) {
    builder.assistant(`Step ${i}: reading file ${i}.`).toolRound([
      {
        name: 'Read',
        args: { file_path: `src/file${i}.ts` },
        result: `export const v${i} = ${i};\n`.repeat(60),
      },
    ]);
  }
  return builder.user('Thanks, now run the whole suite').build();
}

/** One user turn, one assistant turn with two parallel calls, one tool message with two big results. */
function twoResultTurn(): Message[] {
  const big = 'line of output from the tool\n'.repeat(2000);
  return buildConversation()
    .user('Read both files')
    .toolRound([
      { name: 'read_file', args: { path: 'a.txt' }, result: big },
      { name: 'read_file', args: { path: 'b.txt' }, result: big },
    ])
    .build();
}

describe('planCompaction (RT-1)', () => {
  it('returns plain data: a plan survives JSON and applies to the same projection', async () => {
    const messages = agentRun(20);
    const plan = await planCompaction(messages, { ...options, mode: 'manual' });
    expect(plan.compacted).toBe(true);
    const json = JSON.parse(JSON.stringify(plan)) as CompactionPlan;
    expect(json).toEqual(plan);
    const { messages: projection } = await compact(messages, { ...options, mode: 'manual' });
    expect(applyCompactionPlan(messages, json)).toEqual(projection);
    // What changed is said by id: the summary covers a range, dropped ids are inputs.
    const ids = new Set(messages.map((message) => message.id));
    for (const id of plan.dropped) expect(ids.has(id)).toBe(true);
    expect(plan.summary?.covers.count).toBeGreaterThan(0);
    expect(ids.has(plan.summary?.covers.firstId ?? '')).toBe(true);
    expect(plan.firstKeptId).toBeDefined();
    expect(plan.stages.find((stage) => stage.stage === 'summarize')?.summarized).toBeGreaterThan(0);
  });

  it('applies to the history it was planned for plus anything appended since', async () => {
    const messages = agentRun(20);
    const plan = await planCompaction(messages, { ...options, mode: 'manual' });
    const later = buildConversation().user('one more thing').build();
    const extended = [...messages, ...later];
    expect(applyCompactionPlan(extended, plan)).toEqual([...applyCompactionPlan(messages, plan), ...later]);
    expect(() => applyCompactionPlan(messages.slice(1), plan)).toThrow(
      expect.objectContaining({ code: 'E_INVALID_PLAN' }),
    );
  });

  it('fits whatever the strategy: the deterministic backstop always runs last', async () => {
    const messages = twoResultTurn();
    for (const strategy of ['mask', 'truncate', 'supersede', 'summarize', 'hybrid']) {
      const { messages: projection, plan } = await compact(messages, {
        model: 'gpt-4o',
        window: 15_214,
        strategy,
      });
      expect(plan.tokensAfter, strategy).toBeLessThanOrEqual(plan.budget.messages);
      expect(validate(projection)).toEqual([]);
    }
  });

  it('raises E_BUDGET_IMPOSSIBLE only for the protected minimum, naming the cause with numbers', async () => {
    const huge = buildConversation().system('s'.repeat(40_000)).user('hi').build();
    const error = await compact(huge, { counter, window: 4000 }).catch((e: unknown) => e);
    expect(ChatfoldError.hasCode(error, 'E_BUDGET_IMPOSSIBLE')).toBe(true);
    expect((error as ChatfoldError).message).toMatch(/system prompt 10,00\d/);
  });

  it('rejects bad options when given, before any work (E_INVALID_OPTIONS)', async () => {
    const messages = agentRun(1);
    const cases: [unknown, RegExp][] = [
      [{ ...options, target: 5 }, /target/],
      [{ ...options, strategy: 'nope' }, /unknown strategy/],
      [{ ...options, stratgy: 'hybrid' }, /unknown option "stratgy"/],
      [{ ...options, mode: 'sometimes' }, /mode/],
      [{ ...options, summarizer: 'gpt-4o-mini' }, /summarizer/],
      [{ ...options, triggers: [{ fraction: 3 }] }, /triggers\.0\.fraction/],
    ];
    for (const [bad, message] of cases) {
      for (const call of [compact, planCompaction]) {
        const error = await call(messages, bad as never).catch((e: unknown) => e);
        expect(ChatfoldError.isInstance(error), String(message)).toBe(true);
        expect((error as Error).message).toMatch(message);
      }
    }
  });

  it('an aborted signal rejects at once with an AbortError', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(compact(agentRun(20), { ...options, signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
  });

  it('aborting mid-summary cancels the summarizer call and rejects promptly', async () => {
    const controller = new AbortController();
    let summarizerSignal: AbortSignal | undefined;
    const pending = compact(agentRun(20), {
      ...options,
      mode: 'manual',
      signal: controller.signal,
      summarizer: (request) => {
        summarizerSignal = request.signal;
        // A model call that only ends when aborted (or after a minute).
        return new Promise((_, reject) => {
          const timer = setTimeout(() => reject(new Error('never')), 60_000);
          request.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(request.signal.reason);
          });
        });
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(summarizerSignal?.aborted).toBe(true);
  });

  it('a failed manual summary is an error by default (nothing changes), a fallback only when the policy says so', async () => {
    const failing = async () => {
      throw new Error('503');
    };
    const error = await compact(agentRun(20), { ...options, mode: 'manual', summarizer: failing }).catch(
      (e: unknown) => e,
    );
    expect(ChatfoldError.hasCode(error, 'E_SUMMARY_FAILED')).toBe(true);
    expect((error as Error).message).toMatch(/503/);
    const events: string[] = [];
    const { plan } = await compact(agentRun(20), {
      ...options,
      mode: 'manual',
      policy: { onFailure: { manual: 'extractive' } },
      summarizer: failing,
      onEvent: (event) => events.push(event.type),
    });
    expect(plan.fallbacks).toEqual([
      expect.objectContaining({
        source: 'summarizer',
        fallback: 'extractive',
        reason: expect.stringMatching(/503/),
      }),
    ]);
    expect(plan.summary?.source).toBe('extractive');
    expect(events).toContain('compaction-fallback');
  });

  it('an automatic compaction falls back to the extractive summary and says so in an event and the plan', async () => {
    const events: string[] = [];
    const { plan } = await compact(agentRun(20), {
      ...options,
      summarizer: async () => {
        throw new Error('503');
      },
      onEvent: (event) => events.push(event.type),
    });
    expect(plan.mode).toBe('auto');
    expect(plan.fallbacks).toEqual([
      expect.objectContaining({ source: 'summarizer', fallback: 'extractive' }),
    ]);
    expect(events).toContain('compaction-fallback');
  });

  it('streams summary text as compaction-progress events', async () => {
    const deltas: string[] = [];
    const text = 'The agent read twenty files and found the failing assertion in file three of the suite.';
    await compact(agentRun(20), {
      ...options,
      mode: 'manual',
      summarizer: async (request) => {
        for (const word of text.split(' ')) request.onDelta?.(`${word} `);
        return { text, model: 'mini-1' };
      },
      onEvent: (event) => {
        if (event.type === 'compaction-progress' && event.delta !== undefined) deltas.push(event.delta);
      },
    }).then(({ plan }) => expect(plan.summary?.model).toBe('mini-1'));
    expect(deltas.join('').trim()).toBe(text);
  });
});
