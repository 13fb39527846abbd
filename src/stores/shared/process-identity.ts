/**
 * Which process holds something (a lock file, a turn lease), told precisely enough that
 * another process on the same machine can be sure the holder died: pid, host, Linux boot id,
 * pid namespace and the pid's start time. Each extra field closes one way a dead holder could
 * look alive or a live one dead: a reboot (boot id), a container with its own pids but the
 * host's name (namespace), a pid reused by a new process (start time).
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/** A process, as a holder records itself. Empty strings where the platform cannot tell. */
export interface ProcessIdentity {
  readonly pid: number;
  readonly host: string;
  /** Linux boot id; '' elsewhere. */
  readonly boot: string;
  /** Linux pid namespace (`pid:[4026531836]`); '' elsewhere. */
  readonly pidNamespace: string;
  /** The pid's start time in clock ticks since boot (`/proc/<pid>/stat`); '' elsewhere. */
  readonly start: string;
}

let self: ProcessIdentity | undefined;

/** This process. */
export function currentProcess(): ProcessIdentity {
  self ??= {
    pid: process.pid,
    host: hostname(),
    boot: readBootId(),
    pidNamespace: readPidNamespace(),
    start: startTimeOf(process.pid) ?? '',
  };
  return self;
}

/**
 * Whether `holder` certainly no longer runs: it ran on this machine (same host, boot and pid
 * namespace) and its pid is gone, a zombie, or now a different process (another start time);
 * or it ran on this host before a reboot. False whenever that cannot be told — another host,
 * another pid namespace, a platform without procfs — so a live holder is never judged dead;
 * such a holder is judged by age (a lease's expiry) instead.
 */
export function isProcessGone(holder: ProcessIdentity, here: ProcessIdentity = currentProcess()): boolean {
  if (holder.host !== here.host) return false;
  if (here.boot !== '' && holder.boot !== '' && holder.boot !== here.boot) return true; // left before a reboot
  if (holder.pidNamespace !== here.pidNamespace) return false;
  if (!isRunning(holder.pid)) return true;
  if (holder.start === '') return false;
  const start = startTimeOf(holder.pid);
  return start !== undefined && start !== holder.start; // the pid was reused
}

/** True while `pid` is a live process; a zombie (killed, not yet reaped) is not. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM'; // exists, owned by another user
  }
  if (process.platform !== 'linux') return true;
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z'; // undefined: vanished between the two checks
}

/** Linux boot id, so a holder left before a reboot is not mistaken for a live pid after it. */
export function readBootId(): string {
  if (process.platform !== 'linux') return '';
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return ''; // no procfs (container without it): fall back to the age rule
  }
}

function readPidNamespace(): string {
  if (process.platform !== 'linux') return '';
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

/** `/proc/<pid>/stat` from the state on (field 3), split; the command name may hold spaces. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

function startTimeOf(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  return statFields(pid)?.[19]; // field 22, starttime
}
