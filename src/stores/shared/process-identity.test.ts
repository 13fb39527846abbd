import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { currentProcess, isProcessGone, isRunning } from './process-identity.ts';

/** The pid of a process that ran and was reaped. */
function exitedPid(): number {
  const child = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  expect(child.pid).toBeGreaterThan(0);
  return child.pid as number;
}

describe('isProcessGone', () => {
  const here = currentProcess();

  it('names this process', () => {
    expect(here.pid).toBe(process.pid);
    expect(isRunning(here.pid)).toBe(true);
    if (process.platform === 'linux') {
      expect(here.boot).toMatch(/^[0-9a-f-]{36}$/);
      expect(here.pidNamespace).toMatch(/^pid:\[\d+\]$/);
      expect(here.start).toMatch(/^\d+$/);
    }
  });

  it('a live holder on this machine is not gone', () => {
    expect(isProcessGone(here)).toBe(false);
  });

  it('a holder on this machine whose pid ended is gone', () => {
    const pid = exitedPid();
    expect(isRunning(pid)).toBe(false);
    expect(isProcessGone({ ...here, pid })).toBe(true);
  });

  it.runIf(process.platform === 'linux')(
    'a holder whose pid now runs another process (other start time) is gone',
    () => {
      expect(isProcessGone({ ...here, start: `${Number(here.start) - 1}` })).toBe(true);
    },
  );

  it.runIf(process.platform === 'linux')('a holder from before a reboot is gone', () => {
    expect(isProcessGone({ ...here, boot: '00000000-0000-0000-0000-000000000000' })).toBe(true);
  });

  it('a holder that cannot be checked from here is never judged gone', () => {
    const pid = exitedPid();
    // Another host, another pid namespace (a container sharing the host's name): its pids are not ours.
    expect(isProcessGone({ ...here, pid, host: `${here.host}-other` })).toBe(false);
    expect(isProcessGone({ ...here, pid, pidNamespace: 'pid:[1]' })).toBe(false);
    // No start time recorded (not Linux): a running pid counts as the holder.
    expect(isProcessGone({ ...here, start: '' })).toBe(false);
  });
});
