import { type Config, readConfig } from './read-config';

/**
 * The configuration of this process, read once when a function's module loads: a missing or malformed variable stops
 * the cold start with a message naming it (read-config.ts), rather than failing on the first request that needs it.
 */
export const config: Config = readConfig(process.env);
