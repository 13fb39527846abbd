/**
 * A persistent chat with the session API (RT-1, RT-3, ST-6): every message goes to a SQLite
 * file, chatfold decides what the model receives, usage calibrates the counter, and a restart
 * resumes from the latest summary. Works with any OpenAI-compatible server (`baseURL`).
 * `test/integrations/session-sqlite.test.ts` runs this file against the fake provider.
 */
import { createChatfold, fromOpenAI, parseContextOverflow, type Session, toOpenAI } from 'chatfold';
import { sqliteStore } from 'chatfold/sqlite';
import OpenAI from 'openai';

/** Opens (or resumes) the conversation `id` stored in `file`. */
export async function openConversation(file: string, id: string) {
  const chatfold = createChatfold({ model: 'gpt-4o', store: sqliteStore(file) });
  return { chatfold, session: await chatfold.session(id) };
}

/** One user turn: store it, prepare the prompt, call the model, store the reply and its usage. */
export async function turn(session: Session, openai: OpenAI, text: string): Promise<string> {
  await session.append({ role: 'user', parts: [{ type: 'text', text }] });
  const call = async (overflow?: ReturnType<typeof parseContextOverflow>) => {
    const { messages } = await session.prepare({ provider: 'openai', overflow });
    return openai.chat.completions.create({ model: 'gpt-4o', messages: toOpenAI(messages) });
  };
  let completion: OpenAI.Chat.ChatCompletion;
  try {
    completion = await call();
  } catch (error) {
    // The server's real limit is lower than the registry's: learn it, compact, retry once.
    const overflow = parseContextOverflow(error);
    if (overflow === undefined) throw error;
    completion = await call(overflow);
  }
  const message = completion.choices[0]?.message;
  if (message === undefined) throw new Error('the model returned no choice');
  const [reply] = await session.append(fromOpenAI([message]));
  await session.recordUsage({
    inputTokens: completion.usage?.prompt_tokens,
    outputTokens: completion.usage?.completion_tokens,
    messageId: reply?.id,
  });
  return message.content ?? '';
}

/** Usage from the command line: `node examples/session-sqlite.ts chat.db "Hello"`. */
if (import.meta.main) {
  const [file = 'chat.db', text = 'Hello'] = process.argv.slice(2);
  const { chatfold, session } = await openConversation(file, 'default');
  const openai = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY });
  console.log(await turn(session, openai, text));
  console.log((await session.status()).text);
  await chatfold.close();
}
