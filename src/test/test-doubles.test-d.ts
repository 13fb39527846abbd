// Type tests of chatfold/test: each double is the interface it stands in for, and takes a value,
// a function or a per-call array of what that interface returns.
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { generateText, type LanguageModel } from 'ai';
import {
  type AppendRecord,
  compact,
  createChatfold,
  type Message,
  type memoryStore,
  type Store,
  type Summarizer,
  type SummaryRequest,
  type TokenCounter,
} from 'chatfold';
import {
  createMockLanguageModel,
  createMockStore,
  createMockSummarizer,
  createMockTokenCounter,
  type MockLanguageModelCall,
  type MockStore,
} from 'chatfold/test';
import { describe, expectTypeOf, it } from 'vitest';

declare const messages: Message[];

describe('createMockSummarizer', () => {
  it('is a Summarizer that records requests', () => {
    const summarizer = createMockSummarizer('text');
    expectTypeOf(summarizer).toExtend<Summarizer>();
    expectTypeOf(summarizer.calls).toEqualTypeOf<SummaryRequest[]>();
    expectTypeOf(compact).toBeCallableWith(messages, { model: 'gpt-4o', summarizer });
  });

  it('takes a summary, { text, model }, an Error, a function or a per-call array', () => {
    createMockSummarizer({ text: 'text', model: 'gpt-4o-mini' });
    createMockSummarizer(new Error('503'));
    createMockSummarizer(async (request) => {
      expectTypeOf(request).toEqualTypeOf<SummaryRequest>();
      return request.prompt.user;
    });
    createMockSummarizer(['one', new Error('503'), { text: 'three' }]);
    // @ts-expect-error a summary is text
    createMockSummarizer(42);
    // @ts-expect-error streaming is an option, not an answer
    createMockSummarizer({ stream: true });
  });
});

describe('createMockStore', () => {
  it("is the wrapped store's type plus calls by method", () => {
    const store = createMockStore();
    expectTypeOf(store).toExtend<ReturnType<typeof memoryStore>>();
    expectTypeOf(store.calls.append).toEqualTypeOf<[sessionId: string, records: readonly AppendRecord[]][]>();
    expectTypeOf(store.calls.search[0]).toEqualTypeOf<Parameters<typeof store.search> | undefined>();
    expectTypeOf(createChatfold).toBeCallableWith({ model: 'gpt-4o', store });
  });

  it('keeps a core-only store core-only', () => {
    const store = createMockStore({ store: {} as Store });
    expectTypeOf(store).toEqualTypeOf<MockStore<Store>>();
    // @ts-expect-error a core store has no search capability
    void store.calls.search;
  });

  it('takes failures per method with the method’s own arguments', () => {
    createMockStore({
      fail: {
        append: (sessionId, records) => {
          expectTypeOf(sessionId).toEqualTypeOf<string>();
          expectTypeOf(records).toEqualTypeOf<readonly AppendRecord[]>();
          return undefined;
        },
        getSetting: [new Error('reset'), undefined],
        close: new Error('already closed'),
      },
    });
    // @ts-expect-error no such method
    createMockStore({ fail: { apend: new Error('x') } });
    // @ts-expect-error a failure is an Error
    createMockStore({ fail: { append: 'disk full' } });
  });
});

describe('createMockTokenCounter', () => {
  it('is a TokenCounter that records its calls', () => {
    const counter = createMockTokenCounter({ countText: 1 });
    expectTypeOf(counter).toExtend<TokenCounter>();
    expectTypeOf(counter.calls.countMessage).toEqualTypeOf<Message[]>();
    expectTypeOf(compact).toBeCallableWith(messages, { window: 8000, counter });
  });

  it('countExact takes a number, a function, an Error or a per-call array', () => {
    createMockTokenCounter({ countExact: 1200 });
    createMockTokenCounter({ countExact: (list) => list.length * 10 });
    createMockTokenCounter({ countExact: [new Error('429'), 1200] });
    // @ts-expect-error a count is a number or a TokenCount
    createMockTokenCounter({ countExact: '1200' });
  });
});

describe('createMockLanguageModel', () => {
  it('is an AI SDK v4 language model that records calls', () => {
    const model = createMockLanguageModel('ok');
    expectTypeOf(model).toExtend<LanguageModelV4>();
    expectTypeOf(model).toExtend<LanguageModel>();
    expectTypeOf(generateText).toBeCallableWith({ model, prompt: 'hi' });
    expectTypeOf(model.calls).toEqualTypeOf<MockLanguageModelCall[]>();
    expectTypeOf<MockLanguageModelCall['messages']>().toEqualTypeOf<readonly Message[]>();
  });

  it('takes text, a reply with usage and tool calls, an overflow, or a function of the call', () => {
    createMockLanguageModel([
      'text',
      {
        text: 'a',
        usage: { inputTokens: 1, outputTokens: 2 },
        toolCalls: [{ name: 'Read', input: { path: 'a' } }],
      },
      { overflow: { limit: 8192, actual: 9000, provider: 'anthropic' } },
      new Error('503'),
    ]);
    createMockLanguageModel((call) => `${call.messages.length}`);
    // @ts-expect-error a provider chatfold knows the overflow wording of
    createMockLanguageModel({ overflow: { limit: 1, actual: 2, provider: 'mistral' } });
  });
});
