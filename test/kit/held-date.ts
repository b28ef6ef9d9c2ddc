/**
 * Holds the Date still at `now` while `work` runs (jest's fake timers for Date alone: timers, ticks and I/O run as
 * they do), for code that reads the clock itself: a status whose ages count from it, a notifier that dates its digest.
 */
export async function withDateHeld<T>(now: Date | number, work: () => Promise<T>): Promise<T> {
  jest.useFakeTimers({
    now,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
  try {
    return await work();
  } finally {
    jest.useRealTimers();
  }
}
