/**
 * What `check` answers once it answers something, tried every `everyMs` for at most `timeoutMs`: a test waits for a
 * condition (a bot turned stale, a change projected), never for a fixed time, which is either too short on a busy
 * machine or wasted on an idle one.
 */
export async function until<T>(
  check: () => Promise<T | undefined>,
  what: string,
  { timeoutMs = 20_000, everyMs = 200 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs / 1000} s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
