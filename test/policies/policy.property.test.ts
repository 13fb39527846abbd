// Property tests of the policy engine (Engine 2): random policies × random conversations.
import { applyCompactionPlan, compact, type Message, POLICY_PRESET_NAMES, validate } from 'chatfold';
import { createMockTokenCounter } from 'chatfold/test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatfoldMetadata } from '../../src/projection/chatfold-metadata.ts';

const counter = createMockTokenCounter();

/** Alternating user/assistant messages of the given token sizes (+ a pending input). */
function conversation(sizes: readonly number[], withSystem: boolean): Message[] {
  const out: Message[] = [];
  if (withSystem)
    out.push({
      id: 'sys',
      role: 'system',
      parts: [{ type: 'text', text: 'You are helpful.' }],
      createdAt: '2026-01-01T00:00:00.000Z',
    });
  sizes.forEach((tokens, index) => {
    out.push({
      id: `m${index}`,
      role: index % 2 === 0 ? 'user' : 'assistant',
      parts: [{ type: 'text', text: `${index} `.padEnd(Math.max(1, (tokens - 3) * 4), 'x') }],
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index + 1)).toISOString(),
    });
  });
  return out;
}

describe('compaction under any policy (Engine 2)', () => {
  it('fits the budget, validates, never mutates the input, and applies from JSON; deterministic pipelines land on the target', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 4, max: 900 }), { minLength: 3, maxLength: 60 }),
        fc.boolean(),
        fc.constantFrom(...POLICY_PRESET_NAMES),
        fc.integer({ min: 3000, max: 40_000 }),
        fc.constantFrom('auto' as const, 'manual' as const),
        async (sizes, withSystem, preset, window, mode) => {
          const messages = conversation(sizes, withSystem);
          const frozen = structuredClone(messages);
          const result = await compact(messages, {
            counter,
            window,
            maxOutputTokens: 500,
            policy: preset,
            mode,
          }).catch((error: unknown) => error);
          if (result instanceof Error) {
            // Only the protected minimum (system prompt + latest turn) can make a prompt impossible.
            expect((result as { code?: string }).code).toBe('E_BUDGET_IMPOSSIBLE');
            return;
          }
          const { messages: out, plan } = result as Awaited<ReturnType<typeof compact>>;
          expect(messages).toEqual(frozen);
          expect(counter.count(out).total).toBeLessThanOrEqual(plan.budget.messages);
          expect(validate(out)).toEqual([]);
          expect(applyCompactionPlan(messages, JSON.parse(JSON.stringify(plan)))).toEqual(out);
          if (plan.compacted && mode === 'auto') expect(plan.tokensAfter).toBeLessThan(plan.tokensBefore);
          // A deterministic truncating pipeline lands on the target whenever the last turn is small.
          if (plan.compacted && preset === 'agent-truncate' && (sizes.at(-1) as number) < plan.target / 4) {
            expect(plan.tokensAfter).toBeLessThanOrEqual(plan.target);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('retention is exactly the largest suffix that fits (FR-1.3.4), whatever the sizes and the retention', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 4, max: 600 }), { minLength: 4, maxLength: 40 }),
        fc.integer({ min: 0, max: 4000 }),
        async (sizes, retention) => {
          // An odd count: the conversation ends with a user turn (the pending input).
          const messages = conversation(sizes.length % 2 === 0 ? [...sizes, 20] : sizes, false);
          const { messages: out, plan } = await compact(messages, {
            counter,
            window: 200_000,
            mode: 'manual',
            policy: {
              preset: 'chat-app',
              overrides: { retention: { tokens: retention }, manual: { scope: 'retention' } },
            },
          });
          if (!plan.compacted) return;
          const history = messages.slice(0, -1);
          let expected = 0;
          let sum = 0;
          for (let i = history.length - 1; i >= 0; i--) {
            sum += counter.countMessage(history[i] as Message);
            if (sum > retention) break;
            expected++;
          }
          const kept = out.filter((m) => chatfoldMetadata(m) === undefined);
          // Everything summarized is older than everything kept; the input is always sent.
          expect(kept.map((m) => m.id)).toEqual(
            messages.slice(messages.length - 1 - expected).map((m) => m.id),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
