/**
 * chatfold around the OpenAI SDK (RT-2): `withChatfold` wraps `chat.completions.create`; the rest
 * of the client is unchanged. Point `baseURL` at any OpenAI-compatible server.
 * `test/integrations/openai-wrapper.test.ts` runs this file against the fake provider.
 */
import { createChatfold } from 'chatfold';
import { openaiSummarizer, withChatfold } from 'chatfold/openai';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';

/** Stateless: every call is compacted from the messages you pass. */
export function createClient(baseURL = 'https://api.openai.com/v1', apiKey = process.env.OPENAI_API_KEY) {
  const client = new OpenAI({ baseURL, apiKey });
  return withChatfold(client, {
    summarizer: openaiSummarizer(client, { model: 'gpt-4o-mini' }), // a cheaper model writes the summaries
  });
}

/** With a session: messages and replies are stored once, with the usage each call reported. */
export async function createSessionClient(
  sessionId: string,
  baseURL = 'https://api.openai.com/v1',
  apiKey = process.env.OPENAI_API_KEY,
) {
  const client = new OpenAI({ baseURL, apiKey });
  const chatfold = createChatfold({
    model: 'gpt-4o',
    summarizer: openaiSummarizer(client, { model: 'gpt-4o-mini' }),
  });
  const session = await chatfold.session(sessionId);
  return { openai: withChatfold(client, { session }), session };
}

/** One turn: send the whole history; chatfold decides what the model receives. */
export async function chat(openai: ReturnType<typeof createClient>, history: ChatCompletionMessageParam[]) {
  const completion = await openai.chat.completions.create({ model: 'gpt-4o', messages: history });
  const message = completion.choices[0]?.message;
  if (message) history.push(message);
  return message?.content ?? '';
}

/** The same turn, streamed: the chunks are exactly those you would get without chatfold. */
export async function chatStreaming(
  openai: ReturnType<typeof createClient>,
  history: ChatCompletionMessageParam[],
) {
  const stream = await openai.chat.completions.create({ model: 'gpt-4o', messages: history, stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  history.push({ role: 'assistant', content: text });
  return text;
}
