import type { BotState } from '@trading-bot-api/core/types';
import type { BotFigures, FleetFigures } from '../operations/metrics';
import type { Representation } from './representation';
import { type Family, PROMETHEUS_TYPE, renderExposition } from './prometheus';

/**
 * `GET /api/metrics` as Prometheus text: the metric families, their names and labels, from the fleet's figures. Pure
 * (types only from the operation), so its unit test needs no database.
 */

/** Every state a bot reports, in the API's order: one `tba_bot_state` series each, 1 for the bot's own. */
const BOT_STATES: readonly BotState[] = ['running', 'paused', 'stopped', 'error'];

const flag = (yes: boolean) => (yes ? 1 : 0);

/** The gauges with one sample per bot: name, help, and the bot's value (none: no sample). */
const PER_BOT: [string, string, (bot: BotFigures) => string | number | undefined | null][] = [
  [
    'tba_bot_heartbeat_age_seconds',
    "Seconds since the bot's last heartbeat (no sample: it never sent one).",
    (bot) => bot.status.heartbeatAgeSeconds,
  ],
  [
    'tba_bot_stale',
    '1 when the bot reports running but its heartbeat is older than the stale threshold (or missing).',
    (bot) => flag(bot.status.stale),
  ],
  ['tba_open_trades', 'Open trades of the account.', (bot) => bot.status.openTradeCount],
  ['tba_balance', 'Balance, in the account currency (exact: GET /api/{account}/balance).', (bot) => bot.balance?.balance],
  ['tba_nav', 'Net asset value, in the account currency.', (bot) => bot.balance?.nav],
  ['tba_unrealized_pnl', 'Unrealized P&L of the open trades, in the account currency.', (bot) => bot.balance?.unrealizedPL],
  // Not `_total`: Prometheus keeps that suffix for counters, and P&L falls as well as rises (docs/api.md).
  ['tba_realized_pnl', 'Realized P&L of every closed trade, in the account currency.', (bot) => bot.balance?.realizedPL],
  ['tba_realized_pnl_today', 'Realized P&L of the trades closed this UTC day, in the account currency.', (bot) => bot.today.realizedPL],
  ['tba_trades_closed_today', 'Trades closed this UTC day.', (bot) => bot.today.tradesClosed],
  [
    'tba_win_ratio',
    'Share of the trades closed in the last 90 days that made a profit, from 0 to 1 (no sample: none closed).',
    (bot) => bot.recent.winRate,
  ],
  [
    'tba_max_drawdown_ratio',
    'Largest fall of the last 90 days from an equity peak, as a share of the equity at that peak, from 0 to 1 (no sample: no equity known).',
    (bot) => bot.recent.maxDrawdownRatio,
  ],
];

/** The scrape's text: the families in a fixed order. */
export function fleetExposition({ bots, summary }: FleetFigures): string {
  // A bot's series are labelled with its account and what the account's profile says of it.
  const labels = new Map(
    bots.map((bot) => {
      const { currency, broker, environment } = bot.account;
      return [bot, { account: bot.status.accountId, currency, broker, environment }];
    }),
  );
  const families: Family[] = [
    {
      name: 'tba_bot_state',
      help: 'The state the bot last reported: 1 for it, 0 for the other states.',
      samples: bots.flatMap((bot) =>
        BOT_STATES.map((state) => ({ labels: { ...labels.get(bot)!, state }, value: flag(bot.status.state === state) })),
      ),
    },
    ...PER_BOT.map(
      ([name, help, value]): Family => ({
        name,
        help,
        // No sample where a bot has no value (as for a bot that never heartbeated); each bot's labels object is shared
        // by its every family, so renderExposition writes it once.
        samples: bots.flatMap((bot) => {
          const v = value(bot);
          return v === undefined || v === null ? [] : [{ labels: labels.get(bot)!, value: v }];
        }),
      }),
    ),
    {
      name: 'tba_fleet_bots',
      help: 'Bots the key may see (retired ones left out), by reported state.',
      samples: BOT_STATES.map((state) => ({ labels: { state }, value: summary[state] })),
    },
    { name: 'tba_fleet_bots_stale', help: 'Bots that are stale.', samples: [{ labels: {}, value: summary.stale }] },
    { name: 'tba_fleet_bots_visible', help: 'Bots the key may see.', samples: [{ labels: {}, value: summary.total }] },
  ];
  return renderExposition(families);
}

/** The metrics operation's one representation: Prometheus text (an Accept that excludes text/plain is a 406). */
export const METRICS_REPRESENTATION: Representation<FleetFigures> = {
  format: 'prometheus',
  mediaType: PROMETHEUS_TYPE,
  render: fleetExposition,
};
