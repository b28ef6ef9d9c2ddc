/**
 * What `condition` answers once it answers something truthy, tried every `everyMs` for at most `timeoutMs`: a test
 * waits for a condition (a bot turned stale, a change projected, a line printed), never for a fixed time, which is
 * either too short on a busy machine or wasted on an idle one.
 */
export async function until<T>(
  condition: () => T | Promise<T>,
  what: string,
  { timeoutMs = 20_000, everyMs = 50 }: { timeoutMs?: number; everyMs?: number } = {},
): Promise<Exclude<T, false | 0 | '' | null | undefined>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as Exclude<T, false | 0 | '' | null | undefined>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
