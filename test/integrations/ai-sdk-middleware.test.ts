/**
 * RT-2, RT-3, SUM-5 end to end: `examples/ai-sdk-middleware.ts`, unchanged, through the real AI SDK
 * (`@ai-sdk/openai-compatible`) over real HTTP against the fake provider.
 */
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  chat,
  chatStreaming,
  createChatModel,
  createSessionChatModel,
} from '../../examples/ai-sdk-middleware.ts';
import { ChatfoldError } from '../../src/errors/chatfold-error.ts';
import { fromAiSdk, toAiSdk } from '../../src/messages/ai-sdk.ts';
import { fromOpenAI } from '../../src/messages/openai.ts';
import type { Message } from '../../src/messages/types.ts';
import { validate } from '../../src/messages/validate.ts';
import { countTokens } from '../../src/tokens/count-tokens.ts';
import { agentRun, chatRun, LAST_REQUEST } from './agent-run.ts';
import { type ChatRequest, GPT_4O_BUDGET, useFakeOpenAIServer } from './fake-openai-server.ts';

const { server, baseURL, chatRequests } = useFakeOpenAIServer();
const sent = (body: ChatRequest | undefined): Message[] => fromOpenAI(body?.messages ?? []);
const tokens = (messages: Message[]) => countTokens(messages, { model: 'gpt-4o' }).total;
const budget = GPT_4O_BUDGET;
const history = (rounds: number, lines: number): ModelMessage[] => toAiSdk(agentRun(rounds, lines));

describe('AI SDK middleware example against the fake provider', () => {
  it('keeps a conversation over the budget inside it', async () => {
    const messages = history(100, 120);
    expect(tokens(fromAiSdk(messages))).toBeGreaterThan(budget);
    const reply = await chat(createChatModel(baseURL(), 'fake-key'), messages);
    expect(reply).toBe(LAST_REQUEST); // the fake model echoes the last user message
    const request = sent(chatRequests()[0]);
    expect(tokens(request)).toBeLessThanOrEqual(budget);
    expect(validate(request, { provider: 'openai' })).toEqual([]);
    expect(request[0]).toMatchObject({ role: 'system', parts: [{ text: 'You are a coding agent.' }] });
    expect(request.at(-1)).toMatchObject({ role: 'user', parts: [{ text: LAST_REQUEST }] });
  });

  it('summarizes with the summarizer model; its summary is in what the chat model receives (SUM-5)', async () => {
    const messages = toAiSdk(chatRun(100, 80));
    expect(tokens(fromAiSdk(messages))).toBeGreaterThan(budget);
    expect(await chat(createChatModel(baseURL(), 'fake-key'), messages)).toBe('What about module 100?');
    const [summaryRequest] = chatRequests('gpt-4o-mini');
    expect(JSON.stringify(summaryRequest)).toContain('<new-messages>');
    const request = sent(chatRequests()[0]);
    expect(tokens(request)).toBeLessThanOrEqual(budget);
    expect(JSON.stringify(request)).toContain('Fake summary of');
    expect(validate(request, { provider: 'openai' })).toEqual([]);
  });

  it('streams the reply through', async () => {
    const messages = history(100, 120);
    expect(await chatStreaming(createChatModel(baseURL(), 'fake-key'), messages)).toBe(LAST_REQUEST);
    expect(tokens(sent(chatRequests()[0]))).toBeLessThanOrEqual(budget);
    expect(messages.at(-1)).toMatchObject({ role: 'assistant' });
  });

  it('on a 400 context_length_exceeded compacts to the limit the error reported and retries once (RT-3)', async () => {
    server().configure({ contextLimit: { 'gpt-4o': 20_000 } }); // below gpt-4o's 128k in the registry
    const messages = history(40, 80);
    const model = createChatModel(baseURL(), 'fake-key');
    expect(await chat(model, messages)).toBe(LAST_REQUEST);
    const [rejected, retried] = chatRequests();
    expect(tokens(sent(rejected))).toBeGreaterThan(20_000);
    expect(tokens(sent(retried))).toBeLessThanOrEqual(20_000);
    expect(validate(sent(retried), { provider: 'openai' })).toEqual([]);
    // The limit is learned: the next turn is compacted before it is sent, no second 400.
    messages.push({ role: 'user', content: 'And the lint?' });
    expect(await chatStreaming(model, messages)).toBe('And the lint?');
    expect(chatRequests()).toHaveLength(3);
    expect(tokens(sent(chatRequests()[2]))).toBeLessThanOrEqual(20_000);
  });

  it('throws E_CONTEXT_OVERFLOW with the numbers when the retry is rejected too', async () => {
    // The provider counts far more than chatfold does: the compacted retry still does not fit.
    server().configure({ contextLimit: { 'gpt-4o': 20_000 }, countTokens: () => 50_000 });
    const error = await chat(createChatModel(baseURL(), 'fake-key'), history(40, 80)).catch(
      (caught) => caught,
    );
    expect(ChatfoldError.hasCode(error, 'E_CONTEXT_OVERFLOW')).toBe(true);
    expect((error as ChatfoldError).details).toEqual({ provider: 'openai', limit: 20_000, actual: 50_000 });
    expect(chatRequests()).toHaveLength(2);
  });

  it('with a session: stores each message once and sends the session prompt (RT-1)', async () => {
    const { model, session } = await createSessionChatModel('agent-7', baseURL(), 'fake-key');
    const messages = toAiSdk(chatRun(100, 80));
    await chat(model, messages);
    messages.push({ role: 'user', content: 'Run it again.' });
    await chatStreaming(model, messages);
    const status = await session.status();
    // The history the app holds, system prompt included, each message once (replies come back in the next prompt).
    expect(status.messagesInHistory).toBe(1 + messages.length - 1);
    expect(status.compactions).toBe(1);
    expect(status.messagesSummarized).toBeGreaterThan(100);
    for (const body of chatRequests()) expect(tokens(sent(body))).toBeLessThanOrEqual(budget);
    // Between compactions the prompt only grows at the end (RT-5): the second request extends the first.
    const [first, second] = chatRequests().map((body) => body.messages);
    expect(second?.slice(0, first?.length)).toEqual(first);
  });
});
