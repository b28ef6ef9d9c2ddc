/**
 * API Gateway REQUEST authorizer for every data route (not /api/health).
 * Reads the `x-api-key` header; throws "Unauthorized" (401) for a missing or unknown key,
 * returns Deny (403) for a disabled key, Allow with `{keyId, accounts}` context otherwise.
 */
import { authorize } from '../lib/operations/authorizer';

export const handler = authorize;
