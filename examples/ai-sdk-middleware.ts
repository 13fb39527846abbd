/**
 * chatfold as Vercel AI SDK middleware (RT-2): one `wrapLanguageModel` keeps every call inside
 * the model's context window. Works with any AI SDK provider; here an OpenAI-compatible endpoint
 * (OpenAI, vLLM, Ollama, LM Studio, …). `test/integrations/ai-sdk-middleware.test.ts` runs this
 * file against the fake provider.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, type LanguageModel, type ModelMessage, streamText, wrapLanguageModel } from 'ai';
import { createChatfold } from 'chatfold';
import { aiSdkSummarizer, chatfoldMiddleware } from 'chatfold/ai-sdk';

function provider(baseURL: string, apiKey: string | undefined) {
  return createOpenAICompatible({ name: 'openai', baseURL, ...(apiKey ? { apiKey } : {}) });
}

/** Stateless: every call is compacted from the history you pass. */
export function createChatModel(baseURL = 'https://api.openai.com/v1', apiKey = process.env.OPENAI_API_KEY) {
  const openai = provider(baseURL, apiKey);
  return wrapLanguageModel({
    model: openai('gpt-4o'),
    middleware: chatfoldMiddleware({
      summarizer: aiSdkSummarizer(openai('gpt-4o-mini')), // a cheaper model writes the summaries
    }),
  });
}

/** With a session: the history is stored once, summaries persist and the prompt prefix stays stable. */
export async function createSessionChatModel(
  sessionId: string,
  baseURL = 'https://api.openai.com/v1',
  apiKey = process.env.OPENAI_API_KEY,
) {
  const openai = provider(baseURL, apiKey);
  const chatfold = createChatfold({
    model: 'gpt-4o',
    summarizer: aiSdkSummarizer(openai('gpt-4o-mini')),
    // store: a persistent store; the default keeps sessions in memory
  });
  const session = await chatfold.session(sessionId);
  const model = wrapLanguageModel({ model: openai('gpt-4o'), middleware: chatfoldMiddleware({ session }) });
  return { model, session };
}

/** One turn: the whole history goes in; chatfold decides what the model receives. */
export async function chat(model: LanguageModel, history: ModelMessage[]) {
  const { text, response } = await generateText({
    model,
    instructions: 'You are a coding agent.',
    messages: history,
  });
  history.push(...response.messages);
  return text;
}

/** The same turn, streamed. */
export async function chatStreaming(model: LanguageModel, history: ModelMessage[]) {
  const result = streamText({ model, instructions: 'You are a coding agent.', messages: history });
  let text = '';
  for await (const delta of result.textStream) text += delta;
  history.push(...(await result.response).messages);
  return text;
}
