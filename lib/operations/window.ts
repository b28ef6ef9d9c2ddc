import { invalidParameter } from '../errors';
import type { TimeWindow } from '../time';

/** Checks what one parameter alone cannot: that a window's `from` comes before its `to` (a 400 on `from` otherwise). */
export function checkWindow<W extends TimeWindow>(window: W): W {
  if (window.from !== undefined && window.to !== undefined && window.from >= window.to)
    throw invalidParameter('from', 'must be earlier than to');
  return window;
}
