// Preloaded (with --expose-gc) into a service a bench measures: SIGUSR2 runs full garbage
// collections, so the bench reads the memory the service retains, not garbage not yet collected.
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
});
