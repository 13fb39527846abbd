import { z } from 'zod';

/** A context window a local server reported, and where it came from. */
export interface DiscoveredWindow {
  readonly tokens: number;
  /** `vLLM max_model_len`, `llama.cpp n_ctx`, `Ollama context_length of the loaded model`. */
  readonly source: string;
}

/** How long each question to the server may take. */
const DISCOVER_TIMEOUT_MS = 3000;

const positive = z.number().int().positive();
// vLLM: GET /v1/models lists each served model with its `max_model_len`.
const vllmModels = z.object({
  data: z.array(z.object({ id: z.string(), max_model_len: positive.optional() }).loose()),
});
// llama.cpp's server: GET /props (at the root, not under /v1) has the context of a slot.
const llamaCppProps = z.object({
  default_generation_settings: z.object({ n_ctx: positive }).loose(),
});
// Ollama: GET /api/ps lists the loaded models with the context they were loaded with (its
// num_ctx, OLLAMA_CONTEXT_LENGTH or its default — not the model's trained length).
const ollamaRunning = z.object({
  models: z.array(
    z.object({ name: z.string(), model: z.string().optional(), context_length: positive.optional() }).loose(),
  ),
});

async function getJson(url: string, fetchImpl: typeof fetch): Promise<unknown> {
  try {
    const response = await fetchImpl(url, { signal: AbortSignal.timeout(DISCOVER_TIMEOUT_MS) });
    return response.ok ? await response.json() : undefined;
  } catch {
    return undefined; // a server that does not say is not an error: the window is then assumed
  }
}

/**
 * Asks an OpenAI-compatible server how large the model's context window is, where the server
 * says it: vLLM's `max_model_len` for the model in `/v1/models`, llama.cpp's per-slot `n_ctx` in
 * `/props`, Ollama's `context_length` of the model in `/api/ps` when it is loaded (what Ollama
 * truncates to, silently). `undefined` when the server does not say (LM Studio, an Ollama model
 * not loaded yet).
 *
 * @param baseURL The server's OpenAI-compatible base URL (`http://localhost:8000/v1`).
 * @param model The model id requests name.
 */
export async function discoverWindow(
  baseURL: string,
  model: string,
  fetchImpl: typeof fetch = fetch,
): Promise<DiscoveredWindow | undefined> {
  const base = baseURL.replace(/\/+$/, '');
  const models = vllmModels.safeParse(await getJson(`${base}/models`, fetchImpl));
  const served = models.success ? models.data.data.find((entry) => entry.id === model) : undefined;
  if (served?.max_model_len !== undefined)
    return { tokens: served.max_model_len, source: 'vLLM max_model_len' };
  const root = base.replace(/\/v1$/, '');
  const props = llamaCppProps.safeParse(await getJson(`${root}/props`, fetchImpl));
  if (props.success)
    return { tokens: props.data.default_generation_settings.n_ctx, source: 'llama.cpp n_ctx' };
  const running = ollamaRunning.safeParse(await getJson(`${root}/api/ps`, fetchImpl));
  const loaded = running.success
    ? running.data.models.find((entry) => entry.name === model || entry.model === model)
    : undefined;
  if (loaded?.context_length !== undefined) {
    return { tokens: loaded.context_length, source: 'Ollama context_length of the loaded model' };
  }
  return undefined;
}
