import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type FakeProviderServer, startFakeProvider } from '../../src/fake-provider/index.ts';
import { fromOpenAI } from '../../src/messages/openai.ts';
import { resolveModel } from '../../src/models/resolve-model.ts';
import { computeBudget } from '../../src/policy/budget.ts';
import { countTokens } from '../../src/tokens/count-tokens.ts';

/** A Chat Completions request body as the fake provider received it. */
export interface ChatRequest {
  readonly model: string;
  readonly messages: ChatCompletionMessageParam[];
  readonly stream_options?: unknown;
}

/**
 * Starts the fake provider for the file's tests (reset before each): `baseURL()` for the OpenAI
 * SDK, `chatRequests(model)` for the Chat Completions bodies it received for a model.
 */
export function useFakeOpenAIServer() {
  let server: FakeProviderServer | undefined;
  beforeAll(async () => {
    server = await startFakeProvider();
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    server?.reset();
  });
  const running = (): FakeProviderServer => {
    if (server === undefined) throw new Error('the fake provider is not running');
    return server;
  };
  return {
    server: running,
    baseURL: () => `${running().url}/v1`,
    chatRequests: (model = 'gpt-4o'): ChatRequest[] =>
      running()
        .requests.filter((request) => request.path === '/v1/chat/completions')
        .map((request) => request.body as ChatRequest)
        .filter((body) => body.model === model),
  };
}

/** Tokens of a request's messages, as chatfold counts them for gpt-4o. */
export const promptTokens = (messages: readonly ChatCompletionMessageParam[] | undefined): number =>
  countTokens(fromOpenAI(messages ?? []), { model: 'gpt-4o' }).total;

const gpt4o = resolveModel('gpt-4o');
/** gpt-4o's message budget from the registry: window − response reserve − safety margin (TRG-1). */
export const GPT_4O_BUDGET = computeBudget({
  window: gpt4o.contextWindow,
  maxOutputTokens: gpt4o.maxOutputTokens,
}).messages;
