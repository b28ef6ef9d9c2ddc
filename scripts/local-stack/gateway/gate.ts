/** A counting gate: at most `limit` holders; waiters beyond `maxQueued` are refused. */
export class Gate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly maxQueued: number,
  ) {}

  /** Resolves with a release function, or with undefined when the queue is full. */
  async enter(): Promise<(() => void) | undefined> {
    if (this.active >= this.limit) {
      if (this.waiting.length >= this.maxQueued) return undefined;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active += 1;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter; otherwise it is freed.
      if (next) next();
      else this.active -= 1;
    };
  }
}
