/** Instruments are written `BASE_QUOTE` in upper case, such as `EUR_USD`: two to twelve letters or digits a side. */
const INSTRUMENT = /^([A-Za-z0-9]{2,12})[_/-]([A-Za-z0-9]{2,12})$/;

/**
 * The canonical form of an instrument (`eur/usd`, `Eur-Usd` and `EUR_USD` are all `EUR_USD`), or undefined when
 * `text` is not one. The API's filter and the writer both store and compare this form.
 */
export function canonicalInstrument(text: string): string | undefined {
  const match = INSTRUMENT.exec(text);
  return match ? `${match[1]}_${match[2]}`.toUpperCase() : undefined;
}
