/**
 * Which bots changed condition since the alerts last spoke of them: the probe's statuses against the states kept in
 * the alerts table. Pure, so every rule is unit-tested without a database.
 */
import type { BotAlertState, BotCondition, MonitorState } from '@trading-bot-api/core/store/alerts-table';
import type { AccountStatus } from '@trading-bot-api/core/types';

/**
 * A bot's condition: `error` and `stopped` as it reports them, `stale` when it is running yet silent (the rule of
 * /api/{account}/status), otherwise `ok` (running, or paused by its operator: a pause is a choice, not a fault).
 */
export function conditionOf(status: Pick<AccountStatus, 'state' | 'stale'>): BotCondition {
  if (status.state === 'error' || status.state === 'stopped') return status.state;
  return status.stale ? 'stale' : 'ok';
}

/**
 * The monitor's watch after a run at `now`: it goes on when the run before was at most `maxGapSeconds` ago, and
 * starts again otherwise (the stack or the probe was down, or this is the first run).
 */
export function monitorAfter(previous: MonitorState | undefined, now: Date, maxGapSeconds: number): MonitorState {
  const time = now.toISOString();
  const goesOn = previous !== undefined && now.getTime() - Date.parse(previous.lastRunAt) <= maxGapSeconds * 1000;
  return { lastRunAt: time, watchingSince: goesOn ? previous.watchingSince : time };
}

/**
 * Whether the alerts judge a stale bot stale: only once it has been silent for a whole stale interval while the
 * monitor watched. After the monitor was down (and with it, locally, the database the bots write to), a bot's old
 * heartbeat says nothing of it: it gets a full interval to be heard from again before an alert says it is silent.
 */
export function judgedStale(
  status: Pick<AccountStatus, 'stale' | 'lastHeartbeatAt'>,
  watchingSince: string,
  now: Date,
  staleAfterSeconds: number,
): boolean {
  if (!status.stale) return false;
  const watched = Date.parse(watchingSince);
  const heard = status.lastHeartbeatAt === null ? Number.NaN : Date.parse(status.lastHeartbeatAt);
  // A heartbeat ahead of the clock (not believed) counts as none.
  const silentSince = Number.isNaN(heard) || heard > now.getTime() ? watched : Math.max(heard, watched);
  return Math.floor((now.getTime() - silentSince) / 1000) > staleAfterSeconds;
}

export interface BotTransition {
  status: AccountStatus;
  previous: BotAlertState;
  next: BotAlertState;
}

/**
 * The bots whose condition differs from the one last alerted on (a bot never alerted on counts as `ok`, so a bot
 * that is well from the start costs no write). A bot stale by the status's rule but not yet judged so (judgedStale)
 * keeps the condition last alerted on. The new state's `since`: a stale bot's last heartbeat (when it fell silent),
 * a stopped or erring bot's first report of that state, a recovered bot's time of this probe.
 */
export function botTransitions(
  statuses: readonly AccountStatus[],
  states: ReadonlyMap<string, BotAlertState>,
  now: Date,
  watch: { watchingSince: string; staleAfterSeconds: number },
): BotTransition[] {
  const transitions: BotTransition[] = [];
  for (const status of statuses) {
    const previous = states.get(status.accountId) ?? { accountId: status.accountId, condition: 'ok', since: null, version: 0 };
    const condition = conditionOf(status);
    if (condition === previous.condition) continue;
    if (condition === 'stale' && !judgedStale(status, watch.watchingSince, now, watch.staleAfterSeconds)) continue;
    const since =
      condition === 'stale'
        ? status.lastHeartbeatAt
        : condition === 'ok'
          ? now.toISOString()
          : (status.stateSince ?? status.lastHeartbeatAt ?? now.toISOString());
    transitions.push({ status, previous, next: { accountId: status.accountId, condition, since, version: previous.version + 1 } });
  }
  return transitions;
}
