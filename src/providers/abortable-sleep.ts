/**
 * Resolves after `ms`, or at once when `signal` aborts; never rejects. Shared by the sim
 * provider's pacing and the executor's retry backoff. On the global `setTimeout`, so that
 * tests with mocked timers move it.
 */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
