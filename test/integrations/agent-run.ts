import type { Message } from '../../src/messages/types.ts';
import { buildConversation } from '../../src/test/build-conversation.ts';

/** The user request that ends {@link agentRun}. */
export const LAST_REQUEST = 'Thanks. Now run the whole test suite and tell me what fails.';

/**
 * A coding-agent run of `rounds` Read tool rounds whose outputs are `lines` lines long (about 11
 * tokens each), ending with {@link LAST_REQUEST}: the history an app resends on every call.
 * With `system`, a system prompt comes first.
 */
export function agentRun(rounds: number, lines: number, { system }: { system?: string } = {}): Message[] {
  const builder = buildConversation();
  if (system !== undefined) builder.system(system);
  builder.user('Fix the failing test in src/app.ts');
  for (let i = 0; i < rounds; i++) {
    const output = Array.from(
      { length: lines },
      (_, line) => `export const value${i}_${line} = ${line * i};`,
    );
    builder
      .assistant(`Step ${i}: reading src/module${i}.ts.`)
      .toolRound([{ name: 'Read', args: { file_path: `src/module${i}.ts` }, result: output.join('\n') }]);
  }
  return builder.user(LAST_REQUEST).build();
}

/**
 * A plain chat of `turns` questions with long answers (`sentences` sentences, ~15 tokens each):
 * nothing for `supersede` or `mask` to shorten, so compaction has to summarize.
 */
export function chatRun(turns: number, sentences: number): Message[] {
  const builder = buildConversation().user('Help me plan the caching layer for our API.');
  for (let i = 0; i < turns; i++) {
    const answer = Array.from(
      { length: sentences },
      (_, j) =>
        `Point ${i}.${j}: module ${i} keeps ${j * 7} entries and expires them after ${j + 3} minutes.`,
    );
    builder.assistant(answer.join(' ')).user(`What about module ${i + 1}?`);
  }
  return builder.build();
}
