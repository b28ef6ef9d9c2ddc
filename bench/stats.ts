/** Small numeric helpers shared by the bench and its child processes. */

/** The p-th percentile (0–100) of `samples`, nearest-rank on the sorted values (no interpolation). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

export function mean(samples: readonly number[]): number {
  return samples.reduce((sum, value) => sum + value, 0) / samples.length;
}

/** Rounds to `digits` decimals for printing and JSON (the measurements are not more precise than that). */
export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** `a ÷ b`, rounded; NaN when `b` is not positive (never Infinity in the results). */
export function ratio(a: number, b: number): number {
  return b > 0 ? round(a / b, 3) : Number.NaN;
}

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
