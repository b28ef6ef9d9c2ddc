import { createHash } from 'node:crypto';

/** Entity tags for conditional GETs (RFC 9110): the API's JSON answers and the dashboard's files alike. */

/** A strong entity tag of a body: its SHA-256, so equal bodies (and only they) have equal tags. */
export function entityTag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

/** Whether an If-None-Match header names `tag` (weak comparison, as RFC 9110 asks for this header) or is `*`. */
export function noneMatch(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = (value: string) => value.trim().replace(/^W\//, '');
  return header.split(',').some((candidate) => opaque(candidate) === opaque(tag));
}
