// lib/ reads its configuration when loaded; unit tests touch no database, so placeholder values suffice.
Object.assign(process.env, {
  ACCOUNTS_TABLE: 'unit-accounts',
  BALANCES_TABLE: 'unit-balances',
  TRADES_TABLE: 'unit-trades',
  API_KEYS_TABLE: 'unit-api-keys',
  LEDGER_TABLE: 'unit-ledger',
  FLEET_TABLE: 'unit-fleet',
  AWS_REGION: 'us-east-1',
  CURSOR_SECRET: 'unit-test-secret-0123456789abcdef0123456789',
  AUTH_MODE: 'off',
  STAGE: 'unit',
});
