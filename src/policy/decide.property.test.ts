import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ContextPolicyInput, parsePolicy } from './context-policy.ts';
import { decide, decideAhead } from './decide.ts';
import { POLICIES, POLICY_PRESET_NAMES, resolvePolicy } from './presets.ts';

const group = fc
  .record(
    {
      fraction: fc.double({ min: 0.05, max: 1, noNaN: true }),
      tokens: fc.integer({ min: 1, max: 300_000 }),
      messages: fc.integer({ min: 1, max: 200 }),
    },
    { requiredKeys: [] },
  )
  .filter((g) => Object.keys(g).length > 0);

const policyInput: fc.Arbitrary<ContextPolicyInput> = fc.record({
  triggers: fc.array(group, { maxLength: 3 }),
  floor: fc.record({
    tokens: fc.integer({ min: 0, max: 10_000 }),
    messages: fc.integer({ min: 0, max: 20 }),
  }),
  responseReserve: fc.oneof(fc.constant('max-output' as const), fc.integer({ min: 0, max: 8000 })),
  safetyMargin: fc.oneof(fc.constant('by-accuracy' as const), fc.double({ min: 0, max: 0.2, noNaN: true })),
});

const measure = fc.record({
  window: fc.integer({ min: 20_000, max: 400_000 }),
  maxOutputTokens: fc.option(fc.integer({ min: 0, max: 64_000 }), { nil: undefined }),
  accuracy: fc.constantFrom('exact' as const, 'calibrated' as const, 'approximate' as const),
  toolTokens: fc.integer({ min: 0, max: 2000 }),
  tokens: fc.integer({ min: 0, max: 500_000 }),
  messages: fc.integer({ min: 0, max: 500 }),
  messagesSinceCompaction: fc.integer({ min: 0, max: 500 }),
});

describe('decide (Engine 2): the policy decides alone', () => {
  it('auto compacts iff the prompt does not fit, or a whole trigger group holds and the floor allows it', () => {
    fc.assert(
      fc.property(policyInput, measure, (input, m) => {
        const policy = parsePolicy(input);
        const decision = decide(m, policy);
        const prompt = m.tokens + m.toolTokens;
        const holds = policy.triggers.some(
          (g) =>
            (g.fraction === undefined || prompt >= Math.ceil(g.fraction * m.window)) &&
            (g.tokens === undefined || prompt >= g.tokens) &&
            (g.messages === undefined || m.messagesSinceCompaction >= g.messages),
        );
        const aboveFloor = prompt >= policy.floor.tokens && m.messages >= policy.floor.messages;
        const overBudget = m.tokens > decision.budget.messages;
        expect(decision.compact).toBe(overBudget || (holds && aboveFloor));
        expect(decision.mustFit).toBe(overBudget);
        expect(decision.heldByFloor).toBe(!overBudget && holds && !aboveFloor);
        // The target never exceeds the budget, and the budget is what the policy reserves.
        expect(decision.target).toBeLessThanOrEqual(decision.budget.messages);
        if (policy.responseReserve !== 'max-output')
          expect(decision.budget.responseReserve).toBe(policy.responseReserve);
      }),
      { numRuns: 2000 },
    );
  });

  it('manual always compacts; a reported overflow always must fit', () => {
    fc.assert(
      fc.property(policyInput, measure, (input, m) => {
        const policy = parsePolicy(input);
        expect(decide(m, policy, 'manual')).toMatchObject({ compact: true, mode: 'manual' });
        expect(decide(m, policy, 'overflow')).toMatchObject({
          compact: true,
          mode: 'overflow',
          mustFit: true,
        });
      }),
    );
  });

  it('a plan made ahead keeps the target less the growth until the earliest trigger fires (issue 19)', () => {
    fc.assert(
      fc.property(policyInput, measure, (input, m) => {
        const policy = parsePolicy(input);
        const now = decide(m, policy);
        const ahead = decideAhead(m, policy);
        expect(ahead.compact).toBe(true);
        // A trigger that already holds (or a prompt that does not fit) plans what it decides now.
        if (now.compact) {
          expect(ahead).toEqual(now);
          return;
        }
        expect(ahead.budget).toEqual(now.budget);
        expect(ahead.target).toBeLessThanOrEqual(now.target);
        if (ahead.target === 0) return;
        // The growth it expects: the prompt at which a trigger next holds (counts of messages
        // aside), or the budget runs out; never earlier.
        const growth = now.target - ahead.target;
        const grown = { ...m, messages: 1_000_000, messagesSinceCompaction: 1_000_000 };
        expect(decide({ ...grown, tokens: m.tokens + growth }, policy).compact).toBe(true);
        const byTokens = {
          ...policy,
          triggers: policy.triggers.filter((g) => g.fraction !== undefined || g.tokens !== undefined),
        };
        if (growth > 0)
          expect(decide({ ...grown, tokens: m.tokens + growth - 1 }, byTokens).compact).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('a policy round-trips through JSON, and every preset parses to itself', () => {
    fc.assert(
      fc.property(policyInput, (input) => {
        const policy = parsePolicy(input);
        expect(parsePolicy(JSON.parse(JSON.stringify(policy)))).toEqual(policy);
      }),
    );
    for (const name of POLICY_PRESET_NAMES) {
      expect(parsePolicy(JSON.parse(JSON.stringify(POLICIES[name])))).toEqual(POLICIES[name]);
      expect(resolvePolicy(name)).toBe(POLICIES[name]);
    }
  });

  it('bad policies fail when given, naming the field (unknown keys included)', () => {
    const cases: [unknown, RegExp][] = [
      [{ triggers: [{ fraction: 2 }] }, /policy\.triggers\.0\.fraction/],
      [{ triggers: [{}] }, /a trigger group needs/],
      [{ retention: { tokns: 5 } }, /unknown option "tokns"/],
      [{ trigers: [] }, /unknown option "trigers"/],
      [{ pipeline: [] }, /policy\.pipeline/],
      [{ omissionMarker: 'no count here' }, /must contain \{count\}/],
      ['chat-ap', /unknown policy "chat-ap"; known: default, chat-app/],
      [{ preset: 'default', triggers: [] }, /unknown option "triggers" beside preset/],
    ];
    for (const [spec, message] of cases)
      expect(() => resolvePolicy(spec as never), String(message)).toThrow(message);
  });
});
