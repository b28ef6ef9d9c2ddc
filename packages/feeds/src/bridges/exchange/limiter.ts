/**
 * The request weight one exchange allows a minute, shared by every account the feed serves from this process (the
 * exchange counts it per IP, not per key): each call takes its weight before it is sent, at most `share` of the limit
 * a minute (the rest is left to the bots trading from the same IP), and every answer's used-weight header
 * (`X-MBX-USED-WEIGHT-1M`) corrects the count, so weight spent by other programs on the IP is counted too. A 429 or
 * 418 stops every call until its `Retry-After` is over, then the pace is a quarter of the share for `SLOW_MS`.
 *
 * Written by hand and minimal (a count per pool and minute): the project's concurrency helper (p-map) bounds calls in
 * flight, not weight a minute corrected by the exchange's own count, which is what Binance limits.
 */
import { pause } from '../../pause';

/** One of the exchange's weight limits: its limit a minute and the header that says what is used of it. */
export interface WeightPool {
  limit: number;
  /** Lower case, e.g. `x-mbx-used-weight-1m`. */
  header: string;
}

/** How long the pace stays slowed after a 429 or 418. */
const SLOW_MS = 10 * 60_000;
/** The share of the exchange's limit the feed takes by default. */
export const DEFAULT_SHARE = 0.5;

export interface LimiterOptions {
  /** Of each limit, the feed's share (default DEFAULT_SHARE). */
  share?: number;
  now?: () => number;
  wait?: (ms: number) => Promise<void>;
}

/**
 * What a limiter knows that outlives a process (a scheduled function's run): the weight of the current minute by pool,
 * and until when calls wait (a 429's Retry-After) and go slowly.
 */
export interface LimiterState {
  used: Record<string, { minute: number; weight: number }>;
  pausedUntil: number;
  slowUntil: number;
}

export class WeightLimiter {
  private readonly used = new Map<string, { minute: number; weight: number }>();
  private pausedUntil = 0;
  private slowUntil = 0;
  /** Weight taken so far, by pool. */
  readonly spent = new Map<string, number>();
  private readonly now: () => number;
  private readonly wait: (ms: number) => Promise<void>;
  private readonly share: number;

  constructor(
    readonly pools: Readonly<Record<string, WeightPool>>,
    options: LimiterOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.wait = options.wait ?? ((ms) => pause(ms));
    this.share = options.share ?? DEFAULT_SHARE;
  }

  /** What `pool` allows a minute now: the share of its limit, a quarter of it while slowed. */
  budget(pool: string): number {
    const slow = this.now() < this.slowUntil ? 0.25 : 1;
    return Math.max(1, Math.floor(this.pools[pool].limit * this.share * slow));
  }

  private usedNow(pool: string): { minute: number; weight: number } {
    const minute = Math.floor(this.now() / 60_000);
    const held = this.used.get(pool);
    if (held?.minute === minute) return held;
    const fresh = { minute, weight: 0 };
    this.used.set(pool, fresh);
    return fresh;
  }

  /** Waits until `weight` of `pool` may be spent this minute (and no 429 is being waited out), then counts it. */
  async take(pool: string, weight: number): Promise<void> {
    if (!this.pools[pool]) throw new Error(`no weight pool ${pool}`);
    for (;;) {
      const now = this.now();
      if (now < this.pausedUntil) {
        await this.wait(this.pausedUntil - now);
        continue;
      }
      const used = this.usedNow(pool);
      // A call heavier than the whole budget still goes, alone, at the start of a minute.
      if (used.weight === 0 || used.weight + weight <= this.budget(pool)) {
        used.weight += weight;
        this.spent.set(pool, (this.spent.get(pool) ?? 0) + weight);
        return;
      }
      await this.wait((used.minute + 1) * 60_000 - now + 50);
    }
  }

  /** The used weight an answer's headers say (names in any case), for the pools it names. */
  observe(headers: Readonly<Record<string, unknown>>): void {
    for (const [name, value] of Object.entries(headers)) {
      const pool = Object.keys(this.pools).find((key) => this.pools[key].header === name.toLowerCase());
      const weight = Number(value);
      if (pool === undefined || !Number.isFinite(weight)) continue;
      const used = this.usedNow(pool);
      used.weight = Math.max(used.weight, weight);
    }
  }

  /** What it knows now, to be kept between runs (restore() takes it back). */
  state(): LimiterState {
    return { used: Object.fromEntries(this.used), pausedUntil: this.pausedUntil, slowUntil: this.slowUntil };
  }

  /**
   * Takes in what another run (or process) of the same exchange knew: the larger weight of a same minute, the later
   * wait and slow pace. What is older than the current minute has no effect.
   */
  restore(state: LimiterState): void {
    this.pausedUntil = Math.max(this.pausedUntil, state.pausedUntil);
    this.slowUntil = Math.max(this.slowUntil, state.slowUntil);
    for (const [pool, { minute, weight }] of Object.entries(state.used)) {
      if (!this.pools[pool]) continue;
      const used = this.usedNow(pool);
      if (used.minute === minute) used.weight = Math.max(used.weight, weight);
    }
  }

  /**
   * A 429 or 418 with `Retry-After` seconds: every call waits that long, then the pace slows. True when this starts a
   * wait (the caller says so once), false when one was under way already.
   */
  refused(retryAfterSeconds: number): boolean {
    const now = this.now();
    const seconds = Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0 ? retryAfterSeconds : 60;
    const first = now >= this.pausedUntil;
    this.pausedUntil = Math.max(this.pausedUntil, now + seconds * 1000);
    this.slowUntil = this.pausedUntil + SLOW_MS;
    return first;
  }
}
