import { createHmac, timingSafeEqual } from 'node:crypto';
import { encodeScope } from '../access';
import { invalidParameter } from '../errors';
import type { Principal } from '../access';

/**
 * Pagination cursors. A cursor carries only the position of the last trade returned (its order key); it is
 * signed with HMAC-SHA-256 over that position and everything the listing depends on (scope, filters, time window,
 * the API key that received it and its accounts), so a cursor that was altered, or replayed against another
 * account, filter, window or key (even one with the same accounts, or after its own key was revoked), fails to
 * verify.
 */
export interface CursorBinding {
  /** An account id, or `all`. */
  scope: string;
  status?: string;
  instrument?: string;
  /** The time window (stored-form times), when the listing has one. */
  from?: string;
  to?: string;
  principal: Principal;
}

const VERSION = 'v2';
const MAX_LENGTH = 512;

function bindingText(binding: CursorBinding): string {
  const lines = [
    VERSION,
    binding.scope,
    binding.status ?? '*',
    binding.instrument ?? '*',
    encodeScope(binding.principal.accounts),
    binding.principal.keyId ?? '',
  ];
  // Only a listing with a window binds one, so the cursors of listings without one (API 1.0) stay as they were.
  if (binding.from !== undefined || binding.to !== undefined) lines.push(`window ${binding.from ?? '*'} ${binding.to ?? '*'}`);
  return lines.join('\n');
}

function sign(position: string, binding: CursorBinding, secret: string): Buffer {
  return createHmac('sha256', secret)
    .update(`${bindingText(binding)}\n${position}`)
    .digest();
}

/** The opaque cursor for continuing a listing after `position`. */
export function encodeCursor(position: string, binding: CursorBinding, secret: string): string {
  const payload = Buffer.from(position, 'utf8').toString('base64url');
  return `${payload}.${sign(position, binding, secret).toString('base64url')}`;
}

/** What a cursor the listing did not issue is told, whether its form or its signature gave it away. */
export const NOT_A_CURSOR = 'is not a cursor issued for this listing (same scope, filters and window)';

/** A cursor's form: the base64url position, a dot, the 43 characters of its signature; at most 512 characters. */
const CURSOR_FORM = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;

/** Whether `text` has a cursor's form, as the query's parsing checks it (params.ts), before any signature is. */
export function cursorShaped(text: string): boolean {
  return text.length <= MAX_LENGTH && CURSOR_FORM.test(text);
}

/**
 * The position inside a cursor, once its signature proves it was issued for this very listing;
 * otherwise a 400 on `cursor`.
 */
export function decodeCursor(cursor: string, binding: CursorBinding, secret: string): string {
  const invalid = invalidParameter('cursor', NOT_A_CURSOR);
  const match = cursorShaped(cursor) ? CURSOR_FORM.exec(cursor) : null;
  if (!match) throw invalid;
  const position = Buffer.from(match[1], 'base64url').toString('utf8');
  const given = Buffer.from(match[2], 'base64url');
  // base64url lets the last character carry unused low bits, so several texts decode to the same bytes; only the
  // text this API issued is a cursor.
  if (Buffer.from(position, 'utf8').toString('base64url') !== match[1] || given.toString('base64url') !== match[2]) throw invalid;
  const expected = sign(position, binding, secret);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid;
  return position;
}
