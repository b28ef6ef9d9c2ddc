/**
 * How many cases a property test tries. `npm test` runs before every commit, so each property has a quick budget
 * there; `PROPERTY_SCALE` multiplies every budget for a full run on demand (`PROPERTY_SCALE=10 npm test`, or a
 * nightly job), and a fraction shortens them further. One variable for every property of the suite.
 */
export function propertyRuns(quick: number): number {
  const scale = Number(process.env.PROPERTY_SCALE ?? 1);
  if (!Number.isFinite(scale) || scale <= 0) throw new Error(`PROPERTY_SCALE must be a positive number, not ${process.env.PROPERTY_SCALE}`);
  return Math.max(1, Math.round(quick * scale));
}
