import { describe, expect, it } from 'vitest';
import { contextView } from '../cli/repl/context-view.ts';
import { memoryStore } from '../stores/memory/index.ts';
import { buildConversation } from '../test/build-conversation.ts';
import { toGauge } from '../web/server/context-gauge.ts';
import { INITIAL_SESSION_STATE } from './compaction-state.ts';
import { createChatfold } from './create-chatfold.ts';
import { sessionStateKey } from './session.ts';

/** `rounds` user/assistant rounds of ~200 tokens each. */
function rounds(from: number, count: number) {
  const builder = buildConversation();
  for (let i = from; i < from + count; i++) {
    builder.user(`Question ${i}: ${'what shapes a river delta over the centuries? '.repeat(8)}`);
    builder.assistant(`Answer ${i}: ${'sediment, tides and the slope of the shelf shape it. '.repeat(8)}`);
  }
  return builder.build().map((message) => ({ ...message, id: `r${from}_${message.id}` }));
}

describe('the wait after a compaction that did not help is shown, not hidden (TRG-5, TRG-6)', () => {
  it('status() says the trigger holds but the session waits, and when it may compact again', async () => {
    const store = memoryStore();
    const options = { window: 32_000, store };
    const writer = await createChatfold(options).session('w');
    await writer.append(rounds(0, 98)); // ~21.2k tokens: past the 65 % trigger, within the budget
    const messages = (await writer.history()).length;
    // As a session records it after a compaction that saved less than 5 %: wait 3 more messages.
    await store.setSetting(sessionStateKey('w'), {
      version: 1,
      ...INITIAL_SESSION_STATE,
      guard: { resumeAt: messages + 3, consecutiveFailures: 0, consecutiveStalls: 1 },
    });
    const session = await createChatfold(options).session('w');
    const status = await session.status();
    expect(status.conditions[0]?.holds).toBe(true);
    expect(status.reason).toMatch(
      new RegExp(
        `waits after one that did not help: it may run again at message ${messages + 3} \\(3 to go\\)`,
      ),
    );
    expect(status.willCompactNextTurn).toBe(false);
    expect(status.autoCompactionResumesAt).toBe(messages + 3);
    expect(toGauge(status)).toMatchObject({
      willCompactNextTurn: false,
      autoCompactionResumesAt: messages + 3,
    });
    expect(contextView(status, { model: 'gpt-4o' }).join('\n')).toMatch(
      new RegExp(
        `Waiting: the last compaction did not help; automatic compaction resumes at message ${messages + 3}`,
      ),
    );
    const waited = await session.prepare();
    expect(waited.report.compacted).toBe(false);
    expect(waited.report.reason).toMatch(/waiting after a stalled or failed compaction/);
    // Two messages later the next one ends the wait: the gauge says so, and the turn compacts.
    await session.append(rounds(98, 1));
    expect((await session.status()).willCompactNextTurn).toBe(true);
    await session.append(rounds(99, 1).slice(0, 1));
    const resumed = await session.status();
    expect(resumed.reason).not.toMatch(/waits/);
    expect(resumed.autoCompactionResumesAt).toBeUndefined();
    expect(toGauge(resumed).autoCompactionResumesAt).toBeUndefined();
    expect((await session.prepare()).report.compacted).toBe(true);
  });
});
