/**
 * Content negotiation by `Accept` (RFC 9110 §12.5.1), pure: which of the media types an operation offers the client
 * takes. Only operations that offer more than JSON negotiate (api/http/handler.ts); the others answer JSON whatever
 * `Accept` says, as they always have.
 */

/** One media range of an Accept header: `type/subtype` in lower case (either may be `*`) and its weight. */
export interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The media ranges of an Accept header, in order; a range that cannot be read (no `/`, a bad weight) is dropped, as
 * a server may ignore what it does not understand, so it never turns a readable header into a refusal.
 */
export function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range, ...parameters] = part.split(';').map((text) => text.trim());
    const [type, subtype, extra] = range.toLowerCase().split('/');
    if (extra !== undefined || !type || !subtype || !TOKEN.test(type) || !TOKEN.test(subtype)) continue;
    if (type === '*' && subtype !== '*') continue;
    let q = 1;
    for (const parameter of parameters) {
      const [name, value = ''] = parameter.split('=').map((text) => text.trim());
      if (name.toLowerCase() !== 'q') continue;
      q = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value) ? Number(value) : Number.NaN;
    }
    if (!Number.isNaN(q)) ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** How specifically `range` names `mediaType` (2 exactly, 1 by type, 0 by `*\/*`), or -1 when it does not. */
function specificity(range: MediaRange, mediaType: string): number {
  const [type, subtype] = mediaType.toLowerCase().split(';')[0].trim().split('/');
  if (range.type === type && range.subtype === subtype) return 2;
  if (range.type === type && range.subtype === '*') return 1;
  return range.type === '*' ? 0 : -1;
}

/**
 * The index in `offered` (media types, the server's preference first) of the one to answer with: the highest weight
 * the most specific matching range gives it, ties to the server's order. No header (or none readable): the first.
 * Undefined when every offered type has weight 0: a 406.
 */
export function negotiate(header: string | undefined, offered: readonly string[]): number | undefined {
  const ranges = header === undefined ? [] : parseAccept(header);
  if (!ranges.length) return 0;
  let best: { index: number; q: number } | undefined;
  offered.forEach((mediaType, index) => {
    let match: { specificity: number; q: number } | undefined;
    for (const range of ranges) {
      const s = specificity(range, mediaType);
      if (s >= 0 && (match === undefined || s > match.specificity)) match = { specificity: s, q: range.q };
    }
    if (match && match.q > 0 && (best === undefined || match.q > best.q)) best = { index, q: match.q };
  });
  return best?.index;
}
