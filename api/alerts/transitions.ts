/**
 * Which bots changed condition since the alerts last spoke of them: the probe's statuses against the states kept in
 * the alerts table. Pure, so every rule is unit-tested without a database.
 */
import type { BotAlertState, BotCondition } from '@trading-bot-api/core/store/alerts-table';
import type { AccountStatus } from '@trading-bot-api/core/types';

/**
 * A bot's condition: `error` and `stopped` as it reports them, `stale` when it is running yet silent (the rule of
 * /api/{account}/status), otherwise `ok` (running, or paused by its operator: a pause is a choice, not a fault).
 */
export function conditionOf(status: Pick<AccountStatus, 'state' | 'stale'>): BotCondition {
  if (status.state === 'error' || status.state === 'stopped') return status.state;
  return status.stale ? 'stale' : 'ok';
}

export interface BotTransition {
  status: AccountStatus;
  previous: BotAlertState;
  next: BotAlertState;
}

/**
 * The bots whose condition differs from the one last alerted on (a bot never alerted on counts as `ok`, so a bot
 * that is well from the start costs no write). The new state's `since`: a stale bot's last heartbeat (when it fell
 * silent), a stopped bot's last report (when it said so), otherwise the time of this probe.
 */
export function botTransitions(statuses: readonly AccountStatus[], states: ReadonlyMap<string, BotAlertState>, now: Date): BotTransition[] {
  const transitions: BotTransition[] = [];
  for (const status of statuses) {
    const previous = states.get(status.accountId) ?? { accountId: status.accountId, condition: 'ok', since: null, version: 0 };
    const condition = conditionOf(status);
    if (condition === previous.condition) continue;
    const since =
      condition === 'stale' || condition === 'stopped'
        ? (status.lastHeartbeatAt ?? (condition === 'stale' ? null : now.toISOString()))
        : now.toISOString();
    transitions.push({ status, previous, next: { accountId: status.accountId, condition, since, version: previous.version + 1 } });
  }
  return transitions;
}
