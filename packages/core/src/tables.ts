/**
 * The physical names of the tables resources/tables.js defines, by their role. The API reads them from its
 * environment (api/config.ts), a bot's writer from its options; the store reaches each table by these names.
 */
export interface Tables {
  accounts: string;
  balances: string;
  trades: string;
  apiKeys: string;
  ledger: string;
  fleet: string;
}
