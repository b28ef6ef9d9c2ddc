/** What a view gives the page: work to repeat, each at its own pace, and where to say that something failed. */
interface Schedule {
  every: number;
  run: () => Promise<void>;
  /** Failures of this one are not shown (a clock tick). */
  quiet?: boolean;
}

export interface View {
  /** Run once in this order when the view opens, then each every `every` ms until the view closes. */
  schedules: Schedule[];
  onError(message: string): void;
  /** Releases what the view holds (charts). */
  close?(): void;
}
