import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeProvider } from '../../src/fake-provider/index.ts';

/** The command from source (Node 24 strips the types), so this test needs no build. */
const MAIN = new URL('../../src/cli/main.ts', import.meta.url).pathname;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function run(args: readonly string[]) {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  const output = () => ({ stdout, stderr });
  /** Resolves with stdout once it contains `text`. */
  const waitFor = async (text: string): Promise<string> => {
    for (let i = 0; i < 200 && !stdout.includes(text); i += 1) {
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    if (!stdout.includes(text)) throw new Error(`no ${JSON.stringify(text)} in output: ${stdout}${stderr}`);
    return stdout;
  };
  return { child, exit, output, waitFor };
}

describe('chatfold fake-provider', () => {
  it('prints the base URLs, answers the SDKs with the real overflow error and stops on SIGINT', async () => {
    const cli = run(['fake-provider', '--port', '0', '--context-limit', '20']);
    const stdout = await cli.waitFor('Ctrl-C');
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
    expect(url).toBeDefined();
    expect(stdout).toContain(`OpenAI     baseURL ${url}/v1`);
    expect(stdout).toContain(`Anthropic  baseURL ${url}`);
    expect(stdout).toContain('context limit: 20 tokens');
    // The local-server tokenize endpoints it lists answer at that URL.
    expect(stdout).toContain(`llama.cpp  ${url}  (POST /tokenize, /apply-template`);
    expect(stdout).toContain(`vLLM       ${url}  (POST /tokenize`);
    const tokenized = await fetch(`${url}/tokenize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'hello world' }),
    });
    expect(tokenized.status).toBe(200);
    expect(((await tokenized.json()) as { tokens: unknown[] }).tokens.length).toBeGreaterThan(0);
    const openai = new OpenAI({ apiKey: 'sk-fake', baseURL: `${url}/v1`, maxRetries: 0 });
    const short = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(short.choices[0]?.message.content).toBe('hi');
    await expect(
      openai.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'word '.repeat(50) }],
      }),
    ).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded' });
    cli.child.kill('SIGINT');
    expect(await cli.exit).toBe(0);
    expect(cli.output().stderr).toBe('');
  });

  it('survives clients that disconnect mid-body and answers from a --script file', async () => {
    const script = new URL('../fake-provider/tool-loop.yaml', import.meta.url).pathname;
    const cli = run(['fake-provider', '--port', '0', '--script', script]);
    const stdout = await cli.waitFor('Ctrl-C');
    expect(stdout).toContain(`script: 2 rules from ${script}`);
    const url = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(stdout);
    for (let i = 0; i < 5; i++) {
      // Headers promise 1000 bytes; the client sends 10 and leaves.
      const socket = connect(Number(url?.[2]), '127.0.0.1');
      await once(socket, 'connect');
      socket.write(
        'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":1',
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      socket.destroy();
    }
    const openai = new OpenAI({ apiKey: 'sk-fake', baseURL: `${url?.[1]}/v1`, maxRetries: 0 });
    const answer = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'please fix the typo' }],
    });
    expect(answer.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      function: { name: 'read_file', arguments: '{"path":"notes.md"}' },
    });
    expect(cli.child.exitCode).toBeNull();
    cli.child.kill('SIGINT');
    expect(await cli.exit).toBe(0);
    expect(cli.output().stderr).toBe('');
  });

  it('refuses an invalid --script with the file and the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-script-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'rules:\n  - match: { lastUserIncludes: x }\n    reply: { toolCalls: [{ arguments: {} }] }\n',
    );
    const cli = run(['fake-provider', '--script', file]);
    expect(await cli.exit).toBe(1);
    expect(cli.output().stderr).toBe(
      `chatfold: ${file}: rules[0].reply.toolCalls[0].name: Invalid input: expected string, received undefined (a script is { "rules": [{ "match": {…}, "reply": {…} | "steps": […] }] }; see the README's fake-provider section) [E_INVALID_OPTIONS]\n`,
    );
  });

  it('fails with E_INVALID_OPTIONS when the port is taken', async () => {
    const taken = await startFakeProvider();
    try {
      const cli = run(['fake-provider', '--port', String(taken.port)]);
      expect(await cli.exit).toBe(1);
      expect(cli.output().stderr).toMatch(
        /cannot listen on 127\.0\.0\.1:\d+ .*EADDRINUSE.*\[E_INVALID_OPTIONS\]/,
      );
    } finally {
      await taken.close();
    }
  });

  it('rejects a port out of range', async () => {
    const cli = run(['fake-provider', '--port', '70000']);
    expect(await cli.exit).not.toBe(0);
    expect(cli.output().stderr).toContain('expected a port from 0 to 65535');
  });
});
