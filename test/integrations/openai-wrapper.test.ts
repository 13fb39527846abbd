/**
 * RT-2, RT-3, SUM-5 end to end: `examples/openai-wrapper.ts`, unchanged, through the real `openai`
 * SDK over real HTTP against the fake provider.
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { chat, chatStreaming, createClient, createSessionClient } from '../../examples/openai-wrapper.ts';
import { ChatfoldError } from '../../src/errors/chatfold-error.ts';
import { fromOpenAI, toOpenAI } from '../../src/messages/openai.ts';
import { validate } from '../../src/messages/validate.ts';
import { agentRun, chatRun, LAST_REQUEST } from './agent-run.ts';
import { GPT_4O_BUDGET, promptTokens, useFakeOpenAIServer } from './fake-openai-server.ts';

const { server, baseURL, chatRequests } = useFakeOpenAIServer();
const tokens = promptTokens;
const budget = GPT_4O_BUDGET;

describe('OpenAI wrapper example against the fake provider', () => {
  it('compacts a conversation over the budget, non-streaming and streaming; summaries from gpt-4o-mini', async () => {
    const openai = createClient(baseURL(), 'fake-key');
    const history = toOpenAI(chatRun(100, 80));
    expect(tokens(history)).toBeGreaterThan(budget);
    expect(await chat(openai, history)).toBe('What about module 100?');
    history.push({ role: 'user', content: 'And module 101?' });
    expect(await chatStreaming(openai, history)).toBe('And module 101?');
    const requests = chatRequests();
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      expect(tokens(request.messages)).toBeLessThanOrEqual(budget);
      expect(validate(fromOpenAI(request.messages), { provider: 'openai' })).toEqual([]);
      expect(JSON.stringify(request.messages)).toContain('Fake summary of');
    }
    expect(requests[1]?.stream_options).toEqual({ include_usage: true });
    expect(chatRequests('gpt-4o-mini').length).toBeGreaterThan(0);
  });

  it('sends a short conversation exactly as given', async () => {
    const history: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Hello' }];
    expect(await chat(createClient(baseURL(), 'fake-key'), [...history])).toBe('Hello');
    expect(chatRequests()[0]?.messages).toEqual(history);
  });

  it('retries once after a 400 context_length_exceeded, inside the reported limit (RT-3)', async () => {
    server().configure({ contextLimit: { 'gpt-4o': 20_000 } });
    const history = toOpenAI(agentRun(40, 80));
    expect(await chatStreaming(createClient(baseURL(), 'fake-key'), history)).toBe(LAST_REQUEST);
    const [rejected, retried] = chatRequests();
    expect(tokens(rejected?.messages)).toBeGreaterThan(20_000);
    expect(tokens(retried?.messages)).toBeLessThanOrEqual(20_000);
  });

  it('throws E_CONTEXT_OVERFLOW with the numbers when the retry is rejected too', async () => {
    server().configure({ contextLimit: { 'gpt-4o': 20_000 }, countTokens: () => 50_000 });
    const error = await chat(createClient(baseURL(), 'fake-key'), toOpenAI(agentRun(40, 80))).catch(
      (caught: unknown) => caught,
    );
    expect(ChatfoldError.hasCode(error, 'E_CONTEXT_OVERFLOW')).toBe(true);
    expect((error as ChatfoldError).details).toEqual({ provider: 'openai', limit: 20_000, actual: 50_000 });
    expect(chatRequests()).toHaveLength(2);
  });

  it('with a session: messages and replies stored once, with the usage the provider reported (RT-1)', async () => {
    const { openai, session } = await createSessionClient('user-42', baseURL(), 'fake-key');
    const history = toOpenAI(chatRun(100, 80));
    await chat(openai, history);
    history.push({ role: 'user', content: 'And module 101?' });
    await chatStreaming(openai, history);
    history.push({ role: 'user', content: 'Thanks!' });
    await chat(openai, history);
    const rows = await session.history();
    expect(rows.map((row) => row.message.role)).toEqual(fromOpenAI(history).map((message) => message.role));
    const replies = rows.slice(-5).filter((row) => row.message.role === 'assistant');
    expect(replies).toHaveLength(3);
    for (const reply of replies) {
      expect(reply.inputTokens).toBeGreaterThan(0);
      expect(reply.outputTokens).toBeGreaterThan(0);
    }
    // The usage the fake reported is what it counted for the prompt it received.
    expect(replies[0]?.inputTokens).toBe(tokens(chatRequests()[0]?.messages));
    const status = await session.status();
    expect(status.compactions).toBe(1);
    for (const request of chatRequests()) expect(tokens(request.messages)).toBeLessThanOrEqual(budget);
  });
});
