import { readdirSync, readFileSync } from 'node:fs';

/**
 * This process's child processes, from /proc. The test helpers that start
 * etcd and Capstan do not hand out a process when start-up fails (and etcd's
 * helper never exposes its pid), so the bench finds its own children here:
 * for etcd's CPU column, and to stop what a failed start left running.
 */

export interface ChildProcessInfo {
  pid: number;
  argv: string[];
}

export function childProcesses(): ChildProcessInfo[] {
  const children: ChildProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which may contain spaces): state, ppid, …
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      children.push({ pid: Number(entry), argv: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean) });
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** SIGKILLs our children whose command line has `arg`; returns them. */
export function killChildrenWithArg(arg: string): ChildProcessInfo[] {
  const matching = childProcesses().filter((c) => c.argv.includes(arg));
  for (const c of matching) {
    try {
      process.kill(c.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return matching;
}
