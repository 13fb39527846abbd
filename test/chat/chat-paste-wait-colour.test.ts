import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/stores/sqlite/index.ts';
import { startUsageServer, type UsageServer } from '../agent/usage-server.ts';
import { CHATFOLD_ENTRY, type ChatHome, chatHome, localModel } from './chat-fixtures.ts';
import { openTerminal, type TerminalSession } from './tmux-terminal.ts';

// Issue 18 item 5, as a person does it in a real terminal (tmux): a 1 MB paste goes in at once
// (bracketed paste), shows collapsed on the input line, is stored whole and sent fitted to the
// window; while the model has not answered, a spinner counts the seconds; Ctrl-C cancels;
// /context has seed 004's colours on a terminal that has them.

let server: UsageServer | undefined;
const open: TerminalSession[] = [];
afterEach(async () => {
  for (const terminal of open.splice(0)) terminal.close();
  await server?.close();
  server = undefined;
});

/** `chatfold chat --model … --base-url … --store … ARGS` in a fresh terminal (closed after the test). */
function chatInTerminal(
  home: ChatHome,
  args: readonly string[],
  env: Readonly<Record<string, string>> = home.env,
): TerminalSession {
  const terminal = openTerminal({
    command: [process.execPath, CHATFOLD_ENTRY, 'chat', '--store', home.store, ...args],
    cwd: home.dir,
    env,
  });
  open.push(terminal);
  return terminal;
}

/** ~1 MB of prose lines: 24,387 lines of 42 characters and a line end. */
const PASTE = Array.from(
  { length: 24_387 },
  (_, i) => `line ${String(i).padStart(5, '0')}: the garden path runs by a rose`,
).join('\n');

describe('pasting into chatfold chat (bracketed paste)', { timeout: 180_000 }, () => {
  it('a 1 MB paste shows as one collapsed line; stored whole with what was typed after it, sent fitted', async () => {
    server = await startUsageServer({
      shape: 'llama.cpp',
      reporting: 'correct',
      answer: 'That is a web server log.',
    });
    const home = chatHome();
    const terminal = chatInTerminal(home, [
      ...localModel(server.baseURL, 'qwen2.5:32b'),
      '--window',
      '131072',
    ]);
    await terminal.waitFor(/You>$/);
    terminal.paste(PASTE);
    const collapsed = await terminal.waitFor(/You> \[pasted 1\.0 MB, 24,387 lines\]$/, { timeoutMs: 20_000 });
    expect(collapsed).not.toContain('00001 GET'); // the text itself is not drawn on the input line
    terminal.typeLine(' what is this?');
    await terminal.waitFor(/That is a web server log\.\n/, { timeoutMs: 120_000 });
    // Sent fitted: the model got what fits its window (the server's own count), the paste clipped.
    const sent = server.requests.filter((request) => request.hasTools).at(-1);
    expect(sent?.promptTokens).toBeLessThanOrEqual(131_072);
    expect(sent?.lastUserLength).toBeGreaterThan(100_000);
    terminal.press('C-d');
    await terminal.waitFor(/\[exited 0\]/);
    // Stored whole: the session keeps the paste and what was typed after it, character for character.
    const store = sqliteStore(home.store);
    try {
      const [session] = await store.listSessions();
      const messages = await store.messages(session?.id as string);
      const user = messages.find((row) => row.message.role === 'user')?.message;
      const part = user?.parts[0];
      expect(part?.type === 'text' ? part.text : undefined).toBe(`${PASTE} what is this?`);
    } finally {
      await store.close();
    }
  });
});

describe('waiting for the model', { timeout: 120_000 }, () => {
  it('a spinner counts the seconds while the server is silent; Ctrl-C cancels, the prompt is back', async () => {
    server = await startUsageServer({ shape: 'ollama', reporting: 'correct', stall: 'before-headers' });
    const home = chatHome();
    const terminal = chatInTerminal(home, [
      ...localModel(server.baseURL, 'qwen2.5:32b'),
      '--window',
      '32768',
    ]);
    await terminal.waitFor(/You>$/);
    const at = terminal.screen().length;
    terminal.typeLine('hello?');
    await terminal.waitFor(/waiting for the model [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] 2 s$/, { since: at });
    terminal.press('C-c');
    const after = await terminal.waitFor(/⏹ cancelled \(history kept\)\n\nYou>$/, { since: at });
    expect(after).not.toContain('waiting for the model'); // the line was cleared, not left behind
    terminal.press('C-d');
    await terminal.waitFor(/\[exited 0\]/);
  });
});

describe('/context in colour', { timeout: 120_000 }, () => {
  it('cyan headings, dim labels when the terminal has colours; none with NO_COLOR', async () => {
    server = await startUsageServer({ shape: 'vllm', reporting: 'correct', answer: 'Ok.' });
    const home = chatHome();
    const { NO_COLOR: _off, ...colourEnv } = home.env;
    const run = (env: Record<string, string>) =>
      chatInTerminal(home, localModel(server?.baseURL as string), env);
    const coloured = run(colourEnv);
    await coloured.waitFor(/You>$/);
    coloured.typeLine('/context');
    await coloured.waitFor(/History: .*\n[\s\S]*You>$/);
    const styled = coloured.styledScreen();
    // tmux writes the styles back as SGR sequences (cyan is 36, dim is 2), maybe with resets between.
    const styledAs = (code: number, text: string) =>
      new RegExp(`\u001b\\[${code}m(?:\u001b\\[[\\d;]*m)*${text.replace(/[()]/g, '\\$&')}`);
    expect(styled).toMatch(styledAs(36, 'Context Status'));
    expect(styled).toMatch(styledAs(36, 'Summarization Triggers (N messages OR K tokens)'));
    expect(styled).toMatch(styledAs(2, 'No summary yet'));
    const plain = run(home.env);
    await plain.waitFor(/You>$/);
    plain.typeLine('/context');
    await plain.waitFor(/History: .*\n[\s\S]*You>$/);
    const unstyled = plain.styledScreen();
    expect([36, 2].filter((code) => unstyled.includes(`\u001b[${code}m`))).toEqual([]);
  });
});
