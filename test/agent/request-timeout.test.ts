import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/agent/create-agent.ts';
import type { AgentEvent } from '../../src/agent/types.ts';
import { ChatfoldError } from '../../src/errors/chatfold-error.ts';
import { startUsageServer, type UsageServer } from './usage-server.ts';

// Issue 18 item 5: a server that takes the request and never answers (or stops mid-stream) is
// cancelled after requestTimeoutMs of silence, with an error that says so. The server never
// answers, so nothing races: the only way the run ends is the timeout.

let server: UsageServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('requestTimeoutMs', { timeout: 30_000 }, () => {
  it.each(['before-headers', 'after-first-chunk'] as const)(
    'a server silent %s: error event, then done',
    async (stall) => {
      server = await startUsageServer({ shape: 'ollama', reporting: 'correct', stall });
      const agent = await createAgent({
        model: {
          provider: 'openai-compatible',
          name: 'qwen2.5:32b',
          baseURL: server.baseURL,
          maxInputTokens: 32_768,
        },
        requestTimeoutMs: 300,
      });
      const events: AgentEvent[] = [];
      for await (const event of agent.run('hello')) events.push(event);
      const error = events.find((event) => event.type === 'error');
      expect(error).toMatchObject({
        code: 'E_PROVIDER',
        message:
          'openai-compatible:qwen2.5:32b sent nothing for 0.3 s; the request was cancelled (the server may be overloaded or stuck)',
      });
      expect(ChatfoldError.isInstance(error?.type === 'error' ? error.error : undefined)).toBe(true);
      expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'error' });
      // The user's message is kept; a later turn can go on.
      expect((await agent.session.history({ limit: 10 })).map((entry) => entry.message.role)).toContain(
        'user',
      );
    },
  );
});
