// The benches' clocks, in ms. threadCpu: this process's main-thread CPU time (Linux:
// /proc/self/task/<pid>/schedstat, ns on CPU), or null where that file is missing. The file shows the
// time as of the thread's last scheduler update (a tick, 4 ms here): getrusage() (process.cpuUsage)
// brings the calling thread's up to date first, to the ns. processCpu: the whole process's user +
// system time, V8's worker threads included.
import { openSync, readSync } from 'node:fs';

export const processCpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
export const threadCpu = (() => {
  try {
    const fd = openSync(`/proc/self/task/${process.pid}/schedstat`, 'r'), buf = Buffer.alloc(64);
    const read = () => { process.cpuUsage(); return Number(buf.toString('latin1', 0, readSync(fd, buf, 0, 64, 0)).split(' ')[0]) / 1e6; };
    return Number.isFinite(read()) ? read : null;
  } catch { return null; }
})();
