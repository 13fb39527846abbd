/**
 * `chatfold gateway` as a process (issue 21): a Python client using only the standard library
 * talks to it, it logs JSON lines without content or keys, serves /healthz and /metrics, keeps
 * conversations in a SQLite file, refuses unsafe binds and bad config files with positions, and
 * stops gracefully on SIGTERM.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/stores/sqlite/index.ts';
import { type OpenAIUpstream, startOpenAIUpstream } from './openai-upstream.ts';

const MAIN = new URL('../../src/cli/main.ts', import.meta.url).pathname;
const PYTHON_CLIENT = new URL('./python_client.py', import.meta.url).pathname;

const children: ChildProcess[] = [];
let upstream: OpenAIUpstream | undefined;
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await upstream?.close();
  upstream = undefined;
});

function run(args: readonly string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [MAIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, CHATFOLD_STORE: '', ...env },
  });
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
  const waitFor = async (text: string): Promise<string> => {
    // Polls the child's output (no timing assertion: the test's own timeout bounds it).
    while (!stdout.includes(text) && child.exitCode === null)
      await new Promise((resolve) => setTimeout(resolve, 25));
    if (!stdout.includes(text)) throw new Error(`no ${JSON.stringify(text)} in output: ${stdout}${stderr}`);
    return stdout;
  };
  return { child, exit, waitFor, output: () => ({ stdout, stderr }) };
}

describe('chatfold gateway', () => {
  it('serves a Python standard-library client, logs without content or keys, and stops on SIGTERM', async () => {
    upstream = await startOpenAIUpstream({ limit: 1_500 });
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-gateway-'));
    const storeFile = join(dir, 'gateway.db');
    const cli = run(
      [
        'gateway',
        '--upstream',
        `${upstream.url}/v1`,
        '--port',
        '0',
        '--window',
        '1500',
        '--store',
        storeFile,
      ],
      {
        CHATFOLD_UPSTREAM_API_KEY: 'sk-upstream-secret-1234567890',
      },
    );
    const stdout = await cli.waitFor('Ctrl-C');
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1] as string;
    expect(stdout).toContain(`OpenAI clients:    base URL ${url}/v1`);
    expect(stdout).toContain('key: from CHATFOLD_UPSTREAM_API_KEY');

    const { stdout: pythonOut } = await promisify(execFile)('python3', [PYTHON_CLIENT, `${url}/v1`, '25']);
    const seen = JSON.parse(pythonOut) as {
      sessions: string[];
      compacted: number;
      replies: string[];
      streamed: string;
    };
    expect(seen.sessions).toHaveLength(1);
    expect(seen.compacted).toBeGreaterThan(0);
    expect(seen.replies).toHaveLength(25);
    expect(seen.streamed).toMatch(/^ack \d+: One streamed answer/);
    // Every turn fitted the upstream's 1,500 tokens (the client saw no error), with the gateway's key.
    expect(
      upstream.requests.every(
        (request) => request.headers.authorization === 'Bearer sk-upstream-secret-1234567890',
      ),
    ).toBe(true);

    const health = await fetch(`${url}/healthz`);
    expect(await health.json()).toEqual({ status: 'ok' });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(
      /chatfold_gateway_requests_total\{format="openai",stream="false",status="200",compacted="true"\} \d+/,
    );
    expect(metrics).toMatch(/chatfold_gateway_prompt_tokens_total\{stage="before"\} \d+/);

    cli.child.kill('SIGTERM');
    expect(await cli.exit).toBe(0);
    const { stdout: finalOut, stderr } = cli.output();
    expect(finalOut).toContain('stopping: letting requests in flight finish');
    const lines = stderr
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    const events = lines.map((line) => JSON.parse(line) as { type: string; sessionId?: string });
    expect(events.filter((event) => event.type === 'request')).toHaveLength(26);
    expect(stderr).not.toContain('harbour');
    expect(stderr).not.toContain('sk-upstream-secret');
    expect(stderr).not.toContain('python-client-key');

    // The conversation is in the SQLite file: 1 system + 26 user + 26 assistant messages.
    const store = sqliteStore(storeFile);
    const stored = await store.messages(seen.sessions[0] as string);
    expect(stored).toHaveLength(53);
    await store.close();
  });

  it('refuses to listen off loopback without a token', async () => {
    const cli = run(['gateway', '--upstream', 'http://127.0.0.1:9/v1', '--host', '0.0.0.0', '--port', '0']);
    expect(await cli.exit).not.toBe(0);
    expect(cli.output().stderr).toContain('without an access token');
  });

  it('names the line and column of a mistake in the config file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-gateway-config-'));
    const file = join(dir, 'gateway.yaml');
    writeFileSync(file, 'upstream: http://127.0.0.1:11434/v1\nmodels:\n  qwen3:8b:\n    window: lots\n');
    const cli = run(['gateway', '--config', file, '--port', '0']);
    expect(await cli.exit).not.toBe(0);
    expect(cli.output().stderr).toContain(`${file}:4:13 models.qwen3:8b.window:`);
  });
});
