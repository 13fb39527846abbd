import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProvider, vllmTokenize } from '../index.ts';
import { FAKE_BOS_ID, fakePieces, renderFakeChatML } from './fake-tokenizer.ts';
import { FAKE_VLLM_MAX_MODEL_LEN } from './vllm-tokenize.ts';

let server: FakeProviderServer;
let vllmOnly: FakeProviderServer;
beforeAll(async () => {
  server = await startFakeProvider();
  vllmOnly = await startFakeProvider({ routes: [vllmTokenize] });
});
beforeEach(() => {
  server.reset();
  vllmOnly.reset();
});
afterAll(async () => {
  await server.close();
  await vllmOnly.close();
});

const post = async (base: string, path: string, body: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

const chat = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: [{ type: 'text', text: 'Hello, world!' }] },
];

describe('fake llama.cpp server: /tokenize and /apply-template', () => {
  it('tokenizes into ids, or { id, piece } with with_pieces, adding begin-of-text only when asked', async () => {
    const plain = await post(server.url, '/tokenize', { content: 'Hello, world!' });
    expect(plain).toMatchObject({ status: 200, body: { tokens: expect.any(Array) } });
    expect(plain.body.tokens).toHaveLength(fakePieces('Hello, world!').length);
    const pieces = await post(server.url, '/tokenize', {
      content: 'Hello, world!',
      add_special: true,
      with_pieces: true,
    });
    const tokens = pieces.body.tokens as { id: number; piece: string }[];
    expect(tokens[0]?.id).toBe(FAKE_BOS_ID);
    expect(
      tokens
        .slice(1)
        .map((t) => t.piece)
        .join(''),
    ).toBe('Hello, world!');
    // The real server answers a body without content with no tokens.
    expect(await post(server.url, '/tokenize', { with_pieces: false })).toMatchObject({
      status: 200,
      body: { tokens: [] },
    });
  });

  it('renders the chat template with the generation prompt; refuses a body without messages', async () => {
    expect(await post(server.url, '/apply-template', { messages: chat })).toEqual({
      status: 200,
      body: {
        prompt:
          '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHello, world!<|im_end|>\n<|im_start|>assistant\n',
      },
    });
    expect(await post(server.url, '/apply-template', { prompt: 'x' })).toEqual({
      status: 400,
      body: { error: { code: 400, message: "'messages' is required", type: 'invalid_request_error' } },
    });
  });

  it('answers scheduled failures in the server’s error shape', async () => {
    server.configure({ failures: [{ status: 503, message: 'Loading model' }] });
    expect(await post(server.url, '/tokenize', { content: 'x' })).toEqual({
      status: 503,
      body: { error: { code: 503, message: 'Loading model', type: 'unavailable_error' } },
    });
  });
});

describe('fake vLLM server: /tokenize', () => {
  it('applies the chat template to messages and answers { count, max_model_len, tokens, token_strs }', async () => {
    const { status, body } = await post(server.url, '/tokenize', {
      model: 'm',
      messages: chat,
      return_token_strs: true,
    });
    const pieces = fakePieces(renderFakeChatML(chat, undefined, true));
    expect(status).toBe(200);
    expect(body).toMatchObject({
      count: pieces.length,
      max_model_len: FAKE_VLLM_MAX_MODEL_LEN,
      token_strs: pieces,
    });
    expect(body.tokens).toHaveLength(pieces.length);
    // A plain prompt gets begin-of-text by default (add_special_tokens defaults to true there).
    const prompt = await post(server.url, '/tokenize', { prompt: 'Hello' });
    expect(prompt.body).toMatchObject({ count: 2, token_strs: null });
  });

  it('reports the context limit as max_model_len and refuses models it does not serve', async () => {
    vllmOnly.configure({ contextLimit: { 'Qwen/Qwen3-8B': 40_960 } });
    expect(
      (await post(vllmOnly.url, '/tokenize', { model: 'Qwen/Qwen3-8B', prompt: 'x' })).body,
    ).toMatchObject({
      max_model_len: 40_960,
    });
    expect(await post(vllmOnly.url, '/tokenize', { model: 'llama', prompt: 'x' })).toEqual({
      status: 404,
      body: {
        error: {
          message: 'The model `llama` does not exist.',
          type: 'NotFoundError',
          param: 'model',
          code: 404,
        },
      },
    });
  });

  it('refuses what vLLM refuses, in its error shape', async () => {
    expect(await post(vllmOnly.url, '/tokenize', { model: 'm' })).toMatchObject({
      status: 400,
      body: { error: { type: 'BadRequestError', code: 400 } },
    });
    expect(
      await post(vllmOnly.url, '/tokenize', {
        messages: chat,
        add_generation_prompt: true,
        continue_final_message: true,
      }),
    ).toMatchObject({
      status: 400,
      body: {
        error: { message: 'Cannot set both `continue_final_message` and `add_generation_prompt` to True.' },
      },
    });
    vllmOnly.configure({ failures: [{ status: 500, message: 'engine died' }] });
    expect(await post(vllmOnly.url, '/tokenize', { prompt: 'x' })).toEqual({
      status: 500,
      body: { error: { message: 'engine died', type: 'InternalServerError', param: null, code: 500 } },
    });
  });
});
