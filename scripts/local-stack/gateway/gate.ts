/**
 * A counting gate: at most `limit` holders at once, at most `maxQueued` waiting. Entering resolves with the release
 * (called once, when done), or with undefined when the queue is full.
 */
export function countingGate(limit: number, maxQueued: number): () => Promise<(() => void) | undefined> {
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    // The slot passes straight to the next waiter; otherwise it is freed.
    if (next) next();
    else active -= 1;
  };
  return async () => {
    if (active < limit) active += 1;
    else if (waiting.length >= maxQueued) return undefined;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    return release;
  };
}
