/** Samples this process's resident set size every 20 ms; `peak()` is the largest seen. */
export function rssSampler() {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  timer.unref();
  return {
    peakMb: () => Math.max(peak, process.memoryUsage().rss) / 2 ** 20,
    stop: () => clearInterval(timer),
  };
}
