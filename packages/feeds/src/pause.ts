/**
 * Waits `ms`, or less when `signal` aborts (at once if it already has); never rejects. The loops that poll or back off
 * (the ingester's file and retries, the bridges) stop promptly on Ctrl-C this way. The abort listener is removed when
 * the time is up, so a long-running loop does not pile listeners on its signal.
 */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
