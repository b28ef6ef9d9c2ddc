/**
 * Instruments are written `BASE_QUOTE` in upper case, such as `EUR_USD`: two to twelve letters or digits a side. A
 * future names its contract after them (API 1.5): `_PERP` for a perpetual, `_YYYYMMDD` for one that expires that day
 * (`SOL_USDT_PERP`, `BTC_USDT_20261225`), so a listing filtered by instrument, and the performance per instrument,
 * never mix a spot pair with its futures, nor two expiries.
 */
const INSTRUMENT = /^([A-Za-z0-9]{2,12})[_/-]([A-Za-z0-9]{2,12})(?:[_-](perp|\d{8}))?$/i;

/**
 * The canonical form of an instrument (`eur/usd`, `Eur-Usd` and `EUR_USD` are all `EUR_USD`; `sol-usdt-perp` is
 * `SOL_USDT_PERP`), or undefined when `text` is not one. The API's filter and the writer both store and compare this form.
 */
export function canonicalInstrument(text: string): string | undefined {
  const match = INSTRUMENT.exec(text);
  if (!match) return undefined;
  return (match[3] ? `${match[1]}_${match[2]}_${match[3]}` : `${match[1]}_${match[2]}`).toUpperCase();
}

/** The contract a canonical instrument names: none (a spot or margin pair), a perpetual, or the day a future expires. */
export function contractOf(instrument: string): 'none' | 'perpetual' | 'dated' {
  const suffix = instrument.split('_')[2];
  if (suffix === undefined) return 'none';
  return suffix === 'PERP' ? 'perpetual' : 'dated';
}

/** The pair of a canonical instrument, without its contract: `SOL_USDT_PERP` is `SOL_USDT`. */
export function pairOfInstrument(instrument: string): string {
  return instrument.split('_').slice(0, 2).join('_');
}
