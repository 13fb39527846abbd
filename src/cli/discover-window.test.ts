import { describe, expect, it } from 'vitest';
import { discoverWindow } from './discover-window.ts';

/** A fetch that answers from a table of URL → JSON body (404 for the rest), recording the URLs. */
function fakeFetch(answers: Record<string, unknown>) {
  const asked: string[] = [];
  const fetchImpl = (async (input: string | URL | Request) => {
    const url = String(input);
    asked.push(url);
    return url in answers
      ? new Response(JSON.stringify(answers[url]), { headers: { 'content-type': 'application/json' } })
      : new Response('not found', { status: 404 });
  }) as typeof fetch;
  return { fetchImpl, asked };
}

describe('discoverWindow', () => {
  it('vLLM: max_model_len of the model requests name', async () => {
    const { fetchImpl } = fakeFetch({
      'http://h:8000/v1/models': {
        object: 'list',
        data: [
          { id: 'other', max_model_len: 8192 },
          { id: 'Qwen/Qwen2.5-32B-Instruct', object: 'model', owned_by: 'vllm', max_model_len: 32_768 },
        ],
      },
    });
    expect(await discoverWindow('http://h:8000/v1/', 'Qwen/Qwen2.5-32B-Instruct', fetchImpl)).toEqual({
      tokens: 32_768,
      source: 'vLLM max_model_len',
    });
  });

  it('llama.cpp: the slot’s n_ctx from /props at the server root', async () => {
    const { fetchImpl, asked } = fakeFetch({
      'http://h:8080/v1/models': {
        object: 'list',
        data: [{ id: 'model.gguf', meta: { n_ctx_train: 131_072 } }],
      },
      'http://h:8080/props': { default_generation_settings: { n_ctx: 4096 }, total_slots: 1 },
    });
    expect(await discoverWindow('http://h:8080/v1', 'qwen', fetchImpl)).toEqual({
      tokens: 4096,
      source: 'llama.cpp n_ctx',
    });
    expect(asked).toEqual(['http://h:8080/v1/models', 'http://h:8080/props']);
  });

  it('Ollama: the context_length the model was loaded with (/api/ps), not its trained length', async () => {
    const ps = {
      models: [
        { name: 'llama3.1:8b', model: 'llama3.1:8b', context_length: 8192 },
        { name: 'qwen2.5:32b', model: 'qwen2.5:32b', size_vram: 21_000_000_000, context_length: 4096 },
      ],
    };
    const { fetchImpl } = fakeFetch({ 'http://h:11434/api/ps': ps });
    expect(await discoverWindow('http://h:11434/v1', 'qwen2.5:32b', fetchImpl)).toEqual({
      tokens: 4096,
      source: 'Ollama context_length of the loaded model',
    });
  });

  it('a server that says nothing (an Ollama model not loaded yet), or says nonsense: undefined', async () => {
    expect(
      await discoverWindow(
        'http://h:11434/v1',
        'qwen2.5:32b',
        fakeFetch({ 'http://h:11434/v1/models': { data: [{ id: 'qwen2.5:32b' }] } }).fetchImpl,
      ),
    ).toBeUndefined();
    expect(
      await discoverWindow(
        'http://h/v1',
        'm',
        fakeFetch({ 'http://h/props': { default_generation_settings: { n_ctx: -1 } } }).fetchImpl,
      ),
    ).toBeUndefined();
    const failing = (async () => {
      throw new TypeError('fetch failed');
    }) as unknown as typeof fetch;
    expect(await discoverWindow('http://h/v1', 'm', failing)).toBeUndefined();
  });
});
