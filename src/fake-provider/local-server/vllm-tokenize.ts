import { asObject, contextLimitFor } from '../chat-turn.ts';
import type { FakeRoute } from '../server.ts';
import { FAKE_BOS_ID, fakePieces, fakeTokenId, renderFakeChatML } from './fake-tokenizer.ts';
import { vllmError } from './vllm-errors.ts';

/** `max_model_len` the fake reports when no context limit is configured for the model. */
export const FAKE_VLLM_MAX_MODEL_LEN = 32_768;

/**
 * vLLM `POST /tokenize` (vllm/entrypoints/openai, `TokenizeChatRequest` and
 * `TokenizeCompletionRequest`): body `{ model?, messages, tools?, add_generation_prompt? }` or
 * `{ model?, prompt, add_special_tokens? }` → `{ count, max_model_len, tokens, token_strs }`.
 * Checks what vLLM refuses: a model it does not serve (404, when the context limit names the
 * served models), neither `messages` nor `prompt`, `continue_final_message` together with
 * `add_generation_prompt`. Renders chats with the fake ChatML template and tokenizes with the
 * fake tokenizer (or `countTokens` when configured); `max_model_len` is the model's context
 * limit, else {@link FAKE_VLLM_MAX_MODEL_LEN}.
 */
export const vllmTokenize: FakeRoute = {
  method: 'POST',
  path: /^\/tokenize$/,
  error: vllmError,
  handle(request, { behaviour }) {
    const body = asObject(request.body);
    if (body === undefined) return vllmError(400, 'the request body must be a JSON object');
    const model = typeof body.model === 'string' ? body.model : undefined;
    const served = Object.keys(asObject(behaviour.contextLimit) ?? {}).filter((id) => id !== '*');
    if (model !== undefined && served.length > 0 && !served.includes(model) && !served.includes('*'))
      return vllmError(404, `The model \`${model}\` does not exist.`, 'model');
    let text: string;
    let special: boolean;
    if (body.messages !== undefined) {
      if (!Array.isArray(body.messages) || body.messages.some((m) => typeof asObject(m)?.role !== 'string'))
        return vllmError(
          400,
          'messages: Input should be a valid list of chat messages with a role',
          'messages',
        );
      const generation = body.add_generation_prompt !== false;
      if (generation && body.continue_final_message === true)
        return vllmError(
          400,
          'Cannot set both `continue_final_message` and `add_generation_prompt` to True.',
        );
      text = renderFakeChatML(body.messages, body.tools, generation);
      special = body.add_special_tokens === true;
    } else if (typeof body.prompt === 'string') {
      text = body.prompt;
      special = body.add_special_tokens !== false;
    } else {
      return vllmError(400, 'Field required: either messages or prompt', 'prompt');
    }
    const pieces = [...(special ? ['<|begin_of_text|>'] : []), ...fakePieces(text)];
    const ids = pieces.map((piece, i) => (special && i === 0 ? FAKE_BOS_ID : fakeTokenId(piece)));
    const count = behaviour.countTokens === undefined ? ids.length : behaviour.countTokens(request);
    return {
      status: 200,
      body: {
        count,
        max_model_len: contextLimitFor(behaviour.contextLimit, model ?? '*') ?? FAKE_VLLM_MAX_MODEL_LEN,
        tokens:
          behaviour.countTokens === undefined
            ? ids
            : Array.from({ length: count }, (_, i) => ids[i] ?? 256 + i),
        token_strs: body.return_token_strs === true ? pieces : null,
      },
    };
  },
};
