import { asObject } from '../chat-turn.ts';
import type { FakeRoute } from '../server.ts';
import { llamaCppError } from './llama-cpp-errors.ts';
import { llamaCppTokenize } from './llama-cpp-tokenize.ts';
import { vllmTokenize } from './vllm-tokenize.ts';

/** Fields only llama.cpp's `/tokenize` reads. */
const LLAMA_CPP_FIELDS = ['content', 'add_special', 'parse_special', 'with_pieces'];

/**
 * `POST /tokenize` of both local servers on one fake: a body with one of llama.cpp's fields
 * (`content`, `add_special`, `parse_special`, `with_pieces`) is llama.cpp's, anything else
 * vLLM's (`messages` or `prompt`). Scheduled failures answer in llama.cpp's error
 * shape; serve `vllmTokenize` alone (`routes`) to get vLLM's.
 */
export const localTokenize: FakeRoute = {
  method: 'POST',
  path: /^\/tokenize$/,
  error: llamaCppError,
  handle: (request, context) =>
    LLAMA_CPP_FIELDS.some((field) => asObject(request.body)?.[field] !== undefined)
      ? llamaCppTokenize.handle(request, context)
      : vllmTokenize.handle(request, context),
};
