/** The exchanges the feed mirrors, by the name the commands give them (`--exchange binance`). */
import { binance } from './binance';
import type { ExchangeProfile } from './profile';

export const PROFILES: Readonly<Record<string, ExchangeProfile>> = { binance };
