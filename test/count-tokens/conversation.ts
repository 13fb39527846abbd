import { buildConversation } from '../../src/test/build-conversation.ts';

/** A short agent turn both count-tokens suites send: system prompt, a tool round, an answer. */
export const messages = buildConversation()
  .system('You are terse.')
  .user('Read the config')
  .toolRound([{ name: 'read_file', args: { path: 'config.json' }, result: '{"port": 5432}' }])
  .assistant('The port is 5432.')
  .build();

/** The tool the conversation calls, as a definition. */
export const tools = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
];
