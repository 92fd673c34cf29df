// Timing an in-process reference call warm: one untimed call (its result returned), then
// `reps` timed calls; p50 wall ms and process CPU ms per call (process.cpuUsage: every thread).
export async function warmCalls(call, reps) {
  const first = await call();
  const ms = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < reps; i++) {
    const s = process.hrtime.bigint();
    await call();
    ms.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  const cpu = process.cpuUsage(cpu0);
  const sorted = [...ms].sort((a, b) => a - b);
  return { first, p50: sorted[Math.floor(sorted.length / 2)], cpu: (cpu.user + cpu.system) / 1000 / reps };
}
