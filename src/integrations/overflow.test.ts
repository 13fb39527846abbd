import { createOpenAI } from '@ai-sdk/openai';
import { APICallError } from '@ai-sdk/provider';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { generateText } from 'ai';
import fc from 'fast-check';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { type FakeProviderServer, startFakeProvider } from '../fake-provider/index.ts';
import { contextOverflowError, parseContextOverflow } from './overflow.ts';
import type { OverflowReport } from './prompt-fitter.ts';

let server: FakeProviderServer;
beforeAll(async () => {
  server = await startFakeProvider({ contextLimit: 40 });
});
afterAll(() => server.close());

const longPrompt = 'word '.repeat(300);
const rejection = async (call: () => Promise<unknown>): Promise<unknown> => {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
};

describe('parseContextOverflow on real SDK errors from the fake provider', () => {
  it('reads the openai SDK BadRequestError (context_length_exceeded)', async () => {
    const openai = new OpenAI({ apiKey: 'sk-fake', baseURL: `${server.url}/v1`, maxRetries: 0 });
    const error = await rejection(() =>
      openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: longPrompt }] }),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(parseContextOverflow(error)).toEqual({
      provider: 'openai',
      limit: 40,
      actual: expect.any(Number),
      message: expect.stringMatching(
        /^This model's maximum context length is 40 tokens\. However, your messages resulted in \d+ tokens/,
      ),
    });
    expect(parseContextOverflow(error)?.actual).toBeGreaterThan(40);
  });

  it('reads the Anthropic SDK BadRequestError (prompt is too long)', async () => {
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const error = await rejection(() =>
      anthropic.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 10,
        messages: [{ role: 'user', content: longPrompt }],
      }),
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const overflow = parseContextOverflow(error);
    expect(overflow).toMatchObject({
      provider: 'anthropic',
      limit: 40,
      message: expect.stringMatching(/^prompt is too long: \d+ tokens > 40 maximum$/),
    });
    expect(overflow?.actual).toBeGreaterThan(40);
  });

  it('reads the @google/genai ApiError (input token count exceeds the maximum)', async () => {
    const genai = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: server.url } });
    const error = await rejection(() =>
      genai.models.generateContent({ model: 'gemini-2.5-pro', contents: longPrompt }),
    );
    const overflow = parseContextOverflow(error);
    expect(overflow).toMatchObject({
      provider: 'gemini',
      limit: 40,
      message: expect.stringMatching(/^The input token count \(\d+\) exceeds/),
    });
    expect(overflow?.actual).toBeGreaterThan(40);
  });

  it('reads the Vercel AI SDK APICallError, also when retries wrap it', async () => {
    const provider = createOpenAI({ apiKey: 'sk-fake', baseURL: `${server.url}/v1` });
    const error = await rejection(() =>
      generateText({ model: provider.chat('gpt-4o'), prompt: longPrompt, maxRetries: 0 }),
    );
    expect(APICallError.isInstance(error)).toBe(true);
    expect(parseContextOverflow(error)).toMatchObject({ provider: 'openai', limit: 40 });
    const wrapped = new Error('request failed', { cause: new Error('retry failed', { cause: error }) });
    expect(parseContextOverflow(wrapped)).toMatchObject({ provider: 'openai', limit: 40 });
  });

  it('does not take other SDK errors for overflows', async () => {
    const openai = new OpenAI({ apiKey: 'sk-fake', baseURL: `${server.url}/v1`, maxRetries: 0 });
    server.configure({
      failures: [{ status: 429, message: 'Rate limit reached for gpt-4o on tokens per min (TPM)' }],
    });
    const error = await rejection(() =>
      openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    );
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(parseContextOverflow(error)).toBeUndefined();
  });
});

/** Real-world wordings, as quoted in the cited issues. */
const REAL_WORLD: readonly [string, unknown, Partial<OverflowReport>][] = [
  [
    'OpenAI chat completions',
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130011 tokens. Please reduce the length of the messages.",
    { provider: 'openai', limit: 128000, actual: 130011 },
  ],
  [
    'OpenAI legacy completions (comma, "you requested")',
    "This model's maximum context length is 4097 tokens, however you requested 5360 tokens (1360 in your prompt; 4000 for the completion). Please reduce your prompt; or completion length.",
    { provider: 'openai', limit: 4097, actual: 5360 },
  ],
  [
    'OpenAI Responses API',
    'Your input exceeds the context window of this model. Please adjust your input and try again.',
    { provider: 'openai' },
  ],
  [
    'Azure OpenAI (BerriAI/litellm#15968)',
    'AzureException BadRequestError - Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 509178 tokens. Please reduce the length of the messages.',
    { provider: 'openai', limit: 272000, actual: 509178 },
  ],
  [
    'vLLM (vllm-project/vllm#20409)',
    "This model's maximum context length is 16384 tokens. However, you requested 122946 tokens (112946 in the messages, 10000 in the completion). Please reduce the length of the messages or completion.",
    { provider: 'openai', limit: 16384, actual: 122946 },
  ],
  [
    'vLLM input + max_tokens',
    "'max_tokens' or 'max_completion_tokens' is too large: 4096. This model's maximum context length is 8192 tokens and your request has 5000 input tokens (4096 > 8192 - 5000).",
    { provider: 'openai', limit: 8192, actual: 9096 },
  ],
  [
    'vLLM scheduler (vllm-project/vllm#10440)',
    'Input prompt (35247 tokens) is too long and exceeds limit of 1000',
    { provider: 'unknown', limit: 1000, actual: 35247 },
  ],
  [
    'OpenRouter',
    'This endpoint\'s maximum context length is 16385 tokens. However, you requested about 118874 tokens (118374 of text input, 500 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
    { provider: 'openai', limit: 16385, actual: 118874 },
  ],
  [
    'Groq (code context_length_exceeded, no numbers)',
    {
      status: 400,
      error: {
        message: 'Please reduce the length of the messages or completion.',
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    },
    { provider: 'openai' },
  ],
  [
    'Anthropic',
    '400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"},"request_id":"req_011"}',
    {
      provider: 'anthropic',
      limit: 200000,
      actual: 208310,
      message: 'prompt is too long: 208310 tokens > 200000 maximum',
    },
  ],
  [
    'Anthropic input + max_tokens (BrokkAi/brokk-app#540)',
    'input length and `max_tokens` exceed context limit: 179413 + 32768 > 200000, decrease input length or `max_tokens` and try again',
    { provider: 'anthropic', limit: 200000, actual: 212181 },
  ],
  [
    'LiteLLM wrapping Anthropic (OpenHands/OpenHands#4894)',
    'litellm.BadRequestError: litellm.ContextWindowExceededError: AnthropicError - {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210543 tokens > 200000 maximum"}}',
    { provider: 'anthropic', limit: 200000, actual: 210543 },
  ],
  [
    'LiteLLM class name only',
    { name: 'ContextWindowExceededError', message: 'litellm.ContextWindowExceededError: too long' },
    { provider: 'unknown' },
  ],
  [
    'Gemini (@google/genai ApiError message is the JSON body)',
    Object.assign(
      new Error(
        '{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}',
      ),
      { name: 'ApiError', status: 400 },
    ),
    { provider: 'gemini', limit: 1048576, actual: 1200000 },
  ],
  [
    'Gemini without the prompt size (arkavo-org/arkavo-edge#371)',
    'Gemini streaming error: API error: HTTP 400 Bad Request: {"error":{"code":400,"message":"The input token count exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}',
    { provider: 'gemini', limit: 1048576 },
  ],
  [
    'Gemini CLI wording without parentheses (google-gemini/gemini-cli#22609)',
    'API Error: Failed to generate content: The input token count exceeds the maximum number of tokens allowed 1048576',
    { provider: 'gemini', limit: 1048576 },
  ],
  [
    'llama.cpp server with counts (ggml-org/llama.cpp#15780)',
    {
      statusCode: 400,
      responseBody:
        '{"error":{"code":400,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":14429,"n_ctx":8192}}',
    },
    { provider: 'unknown', limit: 8192, actual: 14429 },
  ],
  [
    'llama.cpp server, newer wording (ggml-org/llama.cpp#19774)',
    'request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it',
    { provider: 'unknown', limit: 4096, actual: 4390 },
  ],
  ['llama.cpp / LM Studio MLX', 'Context size has been exceeded.', { provider: 'unknown' }],
  [
    'llama-cpp-python',
    'Requested tokens (2285) exceed context window of 2048',
    { provider: 'unknown', limit: 2048, actual: 2285 },
  ],
  [
    'LM Studio (lmstudio-ai/lmstudio-bug-tracker#546)',
    'Trying to keep the first 111490 tokens when context the overflows. However, the model is loaded with context length of only 32768 tokens, which is not enough.',
    { provider: 'unknown', limit: 32768, actual: 111490 },
  ],
  [
    'Ollama with truncate: false',
    '{"StatusCode":400,"Status":"400 Bad Request","error":"prompt too long; exceeded max context length by 4 tokens"}',
    { provider: 'unknown' },
  ],
  ['Ollama embeddings', 'the input length exceeds the context length', { provider: 'unknown' }],
  [
    'xAI',
    "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
    { provider: 'unknown', limit: 131072, actual: 537812 },
  ],
  [
    'Mistral',
    'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
    { provider: 'unknown', limit: 32768, actual: 40000 },
  ],
  [
    'Together AI',
    "The input (516368 tokens) is longer than the model's context length (262144 tokens).",
    { provider: 'unknown', limit: 262144, actual: 516368 },
  ],
  ['Amazon Bedrock', 'Input is too long for requested model.', { provider: 'unknown' }],
];

describe('parseContextOverflow on real-world wordings', () => {
  it.each(REAL_WORLD)('%s', (_name, error, expected) => {
    expect(parseContextOverflow(error)).toMatchObject(expected);
    expect(parseContextOverflow(new Error('wrapped', { cause: error }))).toMatchObject(expected);
  });

  it.each([
    [
      'a rate limit on tokens per minute',
      'Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 45000.',
    ],
    ['a 429 that mentions the context', Object.assign(new Error('context length exceeded'), { status: 429 })],
    [
      'an output limit',
      'max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.',
    ],
    [
      'an auth error',
      { status: 401, error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } },
    ],
    [
      'a network error',
      new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') }),
    ],
  ])('ignores %s', (_name, error) => {
    expect(parseContextOverflow(error)).toBeUndefined();
  });

  it('returns a value assignable to the prompt fitter’s OverflowReport', () => {
    const report: OverflowReport | undefined = parseContextOverflow(REAL_WORLD[0]?.[1]);
    expect(report?.limit).toBe(128000);
  });

  it('never throws, whatever it is given', () => {
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error('getter');
        },
      },
    );
    const cyclic: Record<string, unknown> = { message: 'x' };
    cyclic.cause = cyclic;
    expect(parseContextOverflow(hostile)).toBeUndefined();
    expect(parseContextOverflow(cyclic)).toBeUndefined();
    fc.assert(
      fc.property(
        fc.anything({ withObjectString: true, withNullPrototype: true, withBigInt: true }),
        (value) => {
          const result = parseContextOverflow(value);
          return result === undefined || typeof result.message === 'string';
        },
      ),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.string(), fc.nat(), fc.nat(), (noise, limit, actual) => {
        const result = parseContextOverflow(
          `${noise}prompt is too long: ${actual} tokens > ${limit} maximum${noise}`,
        );
        return result?.provider === 'anthropic' && result.limit !== undefined;
      }),
    );
  });
});

describe('contextOverflowError', () => {
  it('is an E_CONTEXT_OVERFLOW ChatfoldError with the numbers in details and the cause kept', () => {
    const cause = new Error('provider');
    const error = contextOverflowError(
      {
        provider: 'anthropic',
        limit: 200000,
        actual: 208310,
        message: 'prompt is too long: 208310 tokens > 200000 maximum',
      },
      { cause },
    );
    expect(ChatfoldError.hasCode(error, 'E_CONTEXT_OVERFLOW')).toBe(true);
    expect(error.details).toEqual({ provider: 'anthropic', limit: 200000, actual: 208310 });
    expect(error.cause).toBe(cause);
    expect(error.message).toContain('208,310 tokens > 200,000');
  });
});
