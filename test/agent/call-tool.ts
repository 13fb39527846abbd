import type { AgentTool, AgentToolOutput } from '../../src/agent/types.ts';

/** Runs one tool as the run loop does and returns its result in one shape (the workspace tests). */
export async function callTool(
  tools: Readonly<Record<string, AgentTool<unknown>>>,
  name: string,
  input: unknown,
  signal: AbortSignal = new AbortController().signal,
): Promise<AgentToolOutput> {
  const result = await (tools[name] as AgentTool<unknown>).execute(input, { signal, callId: 'call_1' });
  return typeof result === 'string' ? { output: result } : result;
}
