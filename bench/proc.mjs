// Process figures from /proc (Linux) for the benchmarks: CPU time per process group, so a
// run can say where the machine's cores went (the load generator, the server under test,
// Kafka, PostgreSQL...), and resident memory.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux this runs on

function processes() {
  const found = [];
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return found; // not Linux: no breakdown
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // comm may hold spaces and parentheses: the fields after it start past the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
      found.push({ pid: Number(entry), comm, cmdline, ticks });
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/**
 * Starts counting. `groups` maps a label to a test on a process ({pid, comm, cmdline});
 * the first matching label takes the process. Returns stop(), which gives CPU seconds per
 * label over the interval (processes that started or ended meanwhile count what was seen).
 */
export function cpuMeter(groups) {
  const label = (proc) => groups.find(([, matches]) => matches(proc))?.[0];
  const before = new Map(processes().map((p) => [p.pid, p.ticks]));
  return function stop() {
    const seconds = Object.fromEntries(groups.map(([name]) => [name, 0]));
    for (const proc of processes()) {
      const name = label(proc);
      if (name === undefined) continue;
      seconds[name] += (proc.ticks - (before.get(proc.pid) ?? 0)) / TICKS_PER_SECOND;
    }
    return seconds;
  };
}

/**
 * Starts counting one process's CPU time split into user and kernel (system) time: what its
 * own code costs and what its system calls do (on loopback, a send also runs the receiving
 * side's TCP work). stop() gives both in seconds.
 */
export function cpuSplit(pid) {
  const read = () => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: Number(fields[11]), system: Number(fields[12]) };
  };
  const before = read();
  return function stop() {
    const after = read();
    return {
      user: (after.user - before.user) / TICKS_PER_SECOND,
      system: (after.system - before.system) / TICKS_PER_SECOND,
    };
  };
}

/**
 * The usual groups of this project's stack, plus the benchmark process itself; `pids` adds
 * groups by pid, or by a test on the process ({pid, comm, cmdline}) for several processes.
 */
export function stackGroups(pids = {}) {
  return [
    ['load generator', (p) => p.pid === process.pid],
    ...Object.entries(pids).map(([name, pid]) => [
      name,
      typeof pid === 'function' ? pid : (p) => p.pid === pid,
    ]),
    ['kafka broker', (p) => p.comm === 'java' && p.cmdline.includes('kafka.Kafka')],
    ['postgresql', (p) => p.comm === 'postgres' || p.cmdline.startsWith('postgres')],
    ['redis', (p) => p.comm === 'redis-server'],
  ];
}

/** Resident memory of a process, in MB. */
export function rssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Samples a process's resident memory until stop(), which gives the peak in MB. */
export function rssPeak(pid, intervalMs = 250) {
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), intervalMs);
  return function stop() {
    clearInterval(sampler);
    return Math.max(peak, rssMb(pid));
  };
}
