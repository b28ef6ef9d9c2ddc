/**
 * Mirrors hummingbot instances into accounts, message by message (MQTT: mqtt.ts; or rows of its trades CSV: csv.ts),
 * through the writer:
 *
 * - `hb` (every 10 s): a heartbeat, the bot's state as last known (`running` until told otherwise); silence turns the
 *   account stale as any bot's does;
 * - `status_updates` `offline`, or a v2 strategy's empty performance report (published as it stops): `stopped`;
 *   `online`, or a performance report after a stop: `running`; an ERROR log: `error` with its message, until a stop
 *   or a start, or `errorSeconds` without another while heartbeats go on;
 * - `OrderFilled` events: trades, by positions (../positions.ts), each fill once (by its key, state.ts);
 * - `performance`: the open positions' unrealized P&L, at most every `marksSeconds`.
 *
 * Messages are handled one at a time, in the order they came. Each becomes writer calls, every one of which may be
 * repeated without a second effect; when the database does not answer, the calls left are tried again with
 * back-off while later messages wait (heartbeats and performance reports waiting are folded into the newest), and a
 * change of the database's reachability is said once. What a fill changes is saved (state.ts) before it is written,
 * so a crash between the two writes it at the next start. A message that cannot be read is said once per kind (and
 * instance), with its topic, and skipped: it never stops the bridge nor writes part of a trade.
 */
import {
  canonicalInstrument,
  isAccountId,
  isRefusal,
  MAX_CLOCK_AHEAD_MS,
  sumDecimals,
  type Trade,
  type Writer,
  WriterError,
} from '@trading-bot-api/writer';
import pRetry from 'p-retry';
import { clockSkewSayer, moneyOf } from '../numbers';
import { type HummingbotConfig, type InstanceProfile, profileOf } from './config';
import { type ControllerReport, eventOf, heartbeatOf, jsonOf, logOf, Malformed, performanceOf, statusUpdateOf, topicOf } from './messages';
import { applyFill, bookOf, type Fill, feeInQuote, fillKeyOf, openTradeOf, type Position } from '../positions';
import { type AccountState, type BridgeState, emptyAccount, loadState, replayed, saveState } from './state';

export interface HummingbotBridgeOptions {
  writer: Writer;
  /** hummingbot's `mqtt_namespace` (default `hbot`). */
  namespace: string;
  config: Pick<HummingbotConfig, 'instances' | 'discover' | 'feeRates' | 'marksSeconds' | 'errorSeconds'>;
  /** Where the state is kept (state.ts). */
  stateFile: string;
  /** Receives the lines to tell the operator. */
  report: (line: string) => void;
  /** The longest pause between two tries while the database does not answer. Default 60 s. */
  maxBackoffMs?: number;
}

type BotState = 'running' | 'stopped' | 'error';

/** What the bridge knows of one instance while it runs (its positions are in the state, by account). */
interface Instance {
  id: string;
  profile: InstanceProfile;
  /** Why it is not mirrored (an id that is no account id, a currency the account does not have). */
  disabled?: string;
  /** The profile last written. */
  written?: string;
  state?: BotState;
  message: string | null;
  strategy: string | null;
  errorAtMs?: number;
  marksAtMs?: number;
  /** hummingbot's clock against this machine's (its heartbeats), said when it changes. */
  skew: ReturnType<typeof clockSkewSayer>;
  /** Heard over MQTT (and said so). */
  heard?: boolean;
}

/** A writer call of a message's, repeated until the database answers; `Skip` drops the message's calls left. */
type Call = () => Promise<void>;

class Skip extends Error {}

interface Task {
  /** Turns the message into calls (once: what it changes in the state happens here). */
  plan: () => Promise<Call[]>;
  calls?: Call[];
  /** Waiting tasks with the same key are folded into the newest (heartbeats, performance reports). */
  fold?: string;
}

/** A duration, for the lines said. */
const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
/** The writer's limit for a bot's message. */
const MAX_MESSAGE = 500;
const clip = (text: string) => (text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text);

export class HummingbotBridge {
  private readonly instances = new Map<string, Instance>();
  private readonly queue: Task[] = [];
  private readonly said = new Set<string>();
  private readonly written = new Set<string>();
  private working?: Promise<void>;
  private down?: string;
  private readonly stop = new AbortController();
  /** Fills given again (a replay, a reconnect, a file read again), not applied a second time. */
  replayedFills = 0;

  private constructor(
    private readonly options: HummingbotBridgeOptions,
    private readonly state: BridgeState,
  ) {}

  /** A bridge over the state in `options.stateFile`: trades computed and not known to be written are written first. */
  static async open(options: HummingbotBridgeOptions): Promise<HummingbotBridge> {
    const bridge = new HummingbotBridge(options, await loadState(options.stateFile));
    for (const [account, state] of Object.entries(bridge.state.accounts)) {
      if (!state.unsynced.length) continue;
      const trades = state.unsynced;
      // The account may not be written yet either (stopped between saving a first fill and writing it).
      const id = Object.entries(options.config.instances).find(([, profile]) => profile.account === account)?.[0] ?? account;
      const instance = bridge.instanceOf(id);
      if (instance) bridge.push({ plan: async () => [...bridge.profileCall(instance), bridge.recordCall(account, trades, state)] });
    }
    return bridge;
  }

  /** The accounts written to since the bridge started. */
  get accounts(): string[] {
    return [...this.written];
  }

  /** One MQTT message (topic and payload as received). */
  receive(topic: string, payload: Buffer | string): void {
    const { namespace } = this.options;
    const where = topicOf(topic, namespace);
    if ('quiet' in where) return;
    if ('unknown' in where) {
      this.once(namespace, `topic ${where.unknown}`, `${topic}: a topic this bridge does not know; skipped`);
      return;
    }
    const instance = this.instanceOf(where.instance, true);
    if (!instance) return;
    const { channel } = where;
    const read = <T>(parse: () => T): T | undefined => {
      try {
        return parse();
      } catch (error) {
        if (!(error instanceof Malformed)) throw error;
        this.once(instance.profile.account, `${instance.id} ${error.kind}`, `${topic}: ${error.message}; skipped`);
        return undefined;
      }
    };
    const json = read(() => jsonOf(payload, channel));
    if (!json) return;
    if (channel === 'hb') {
      const beat = read(() => heartbeatOf(json));
      if (beat) this.push({ plan: async () => this.planBeat(instance, beat.atMs), fold: `${instance.id} hb` });
    } else if (channel === 'status_updates') {
      const update = read(() => statusUpdateOf(json));
      if (update && 'other' in update)
        this.once(
          instance.profile.account,
          `${instance.id} status ${update.other}`,
          `${topic}: status update ${update.other} not mapped; skipped`,
        );
      else if (update) this.push({ plan: async () => this.planState(instance, update.availability === 'online' ? 'running' : 'stopped') });
    } else if (channel === 'log') {
      const log = read(() => logOf(json));
      if (log?.error) this.push({ plan: async () => this.planError(instance, log.message) });
    } else if (channel === 'events') {
      const event = read(() => eventOf(json));
      if (event && 'fill' in event) this.receiveFill(instance.id, event.fill, topic);
    } else {
      const reports = read(() => performanceOf(json));
      if (reports) this.push({ plan: async () => this.planPerformance(instance, reports), fold: `${instance.id} performance` });
    }
  }

  /** One fill of `instanceId` (from MQTT, or a row of its trades CSV, named by `source`). */
  receiveFill(instanceId: string, fill: Fill, source: string): void {
    const instance = this.instanceOf(instanceId);
    if (instance) this.push({ plan: () => this.planFill(instance, fill, source) });
  }

  /** The header of the trades CSV read for `instanceId`, kept across restarts (undefined: none yet). */
  csvHeader(instanceId: string, header?: string[]): string[] | undefined {
    const instance = this.instanceOf(instanceId);
    if (!instance) return undefined;
    const account = this.accountState(instance.profile.account);
    if (header) {
      account.csvHeader = header;
      this.push({ plan: () => this.save().then(() => []) });
    }
    return account.csvHeader;
  }

  /** Resolves once every message received so far is handled (or the bridge is closed). */
  async idle(): Promise<void> {
    while (this.working) await this.working;
  }

  /** Stops handling messages (a call under way ends first) and saves the state. */
  async close(): Promise<void> {
    this.stop.abort();
    await this.idle();
    await this.save();
  }

  private push(task: Task): void {
    if (this.stop.signal.aborted) return;
    if (task.fold) {
      // A heartbeat or report waiting (not begun) says less than the newest, which takes its turn after what came
      // between them (a report counts the fills before it).
      const waiting = this.queue.findIndex((other, index) => other.fold === task.fold && !(index === 0 && this.working));
      if (waiting !== -1) this.queue.splice(waiting, 1);
    }
    this.queue.push(task);
    this.kick();
  }

  /** Starts handling the queue unless it is being handled; a task pushed as that ends is handled too. */
  private kick(): void {
    if (this.working) return;
    this.working = this.work().finally(() => {
      this.working = undefined;
      if (this.queue.length && !this.stop.signal.aborted) this.kick();
    });
  }

  private async work(): Promise<void> {
    const cap = this.options.maxBackoffMs ?? 60_000;
    // The database not answering, or refusing the writer for its configuration (a missing table or permission): the
    // message waits, nothing is lost, and the bridge says why once and tries again, backing off, until it answers or
    // someone fixes the configuration.
    const waits = (error: unknown): error is WriterError =>
      error instanceof WriterError && (error.code === 'UNAVAILABLE' || error.code === 'MISCONFIGURED');
    while (this.queue.length && !this.stop.signal.aborted) {
      const task = this.queue[0];
      try {
        await pRetry(() => this.run(task), {
          retries: Number.POSITIVE_INFINITY,
          minTimeout: 1000,
          maxTimeout: cap,
          signal: this.stop.signal,
          shouldRetry: ({ error }) => waits(error),
          onFailedAttempt: ({ error }) => {
            if (!waits(error) || this.down === error.message) return;
            this.options.report(
              error.code === 'MISCONFIGURED'
                ? `bridge: ${error.message}; holding the messages and trying again, backing off up to ${seconds(cap)}`
                : `bridge: the database does not answer (${error.message}); trying again, backing off up to ${seconds(cap)}`,
            );
            this.down = error.message;
          },
        });
        if (this.down) this.options.report('bridge: the database answers again');
        this.down = undefined;
      } catch (error) {
        if (this.stop.signal.aborted) return;
        // A fault of the bridge's own (a bug, a state file it cannot write): said, and the message dropped, so one
        // message cannot stop the others.
        this.options.report(`bridge: a message could not be handled and is skipped: ${(error as Error).stack ?? String(error)}`);
      }
      this.queue.shift();
    }
  }

  /** A task's calls, from where an earlier attempt stopped. */
  private async run(task: Task): Promise<void> {
    task.calls ??= await task.plan();
    while (task.calls.length) {
      try {
        await task.calls[0]();
      } catch (error) {
        if (error instanceof Skip) task.calls.length = 1;
        else throw error;
      }
      task.calls.shift();
    }
  }

  /** Says `text` once per `kind` (with the account, instance or namespace it concerns). */
  once(scope: string, kind: string, text: string): void {
    if (this.said.has(kind)) return;
    this.said.add(kind);
    this.options.report(`bridge ${scope}: ${text} (said once)`);
  }

  private say(instance: Instance, text: string): void {
    this.options.report(`bridge ${instance.profile.account}: ${text}`);
  }

  /**
   * The instance `id`, met for the first time or not; undefined when it is not mirrored (said once). Met in an MQTT
   * message (`heard`), the bridge says it mirrors it.
   */
  private instanceOf(id: string, heard = false): Instance | undefined {
    const scope = `${this.options.namespace}/${id.replaceAll('.', '/')}`;
    let instance = this.instances.get(id);
    if (!instance) {
      const profile = profileOf(this.options.config, id);
      const skew = clockSkewSayer(
        'hummingbot',
        'its heartbeats',
        `heartbeats carry this machine's time; fills it dates more than ${MAX_CLOCK_AHEAD_MS / 60_000} min ahead are refused by the writer`,
      );
      instance = { id, profile, message: null, strategy: null, skew };
      if (!this.options.config.discover && !this.options.config.instances[id])
        instance.disabled = 'not in the configuration, which mirrors only the instances it lists ("discover": false)';
      else if (!isAccountId(profile.account))
        instance.disabled = `${JSON.stringify(id)} is not an account id (1–64 letters, digits, ".", "_" or "-"): give it an "account" in the configuration`;
      this.instances.set(id, instance);
      if (instance.disabled) this.options.report(`bridge ${scope}: not mirrored: ${instance.disabled}`);
    }
    if (heard && !instance.heard && !instance.disabled) {
      instance.heard = true;
      this.say(instance, `mirroring hummingbot instance ${id} (${scope}/…)`);
    }
    return instance.disabled ? undefined : instance;
  }

  private accountState(account: string): AccountState {
    this.state.accounts[account] ??= emptyAccount();
    return this.state.accounts[account];
  }

  private currencyOf(instance: Instance): string | undefined {
    return instance.profile.currency ?? this.state.accounts[instance.profile.account]?.currency;
  }

  private save(): Promise<void> {
    return saveState(this.options.stateFile, this.state);
  }

  /** The call that creates or updates the account, when its profile is not written yet; none while its currency is unknown. */
  private profileCall(instance: Instance): Call[] {
    const currency = this.currencyOf(instance);
    if (!currency) {
      this.once(
        instance.profile.account,
        `${instance.id} no currency`,
        `waiting for its first fill to learn its currency (or give "currency" in the configuration); nothing is written until then`,
      );
      return [];
    }
    const { account: id, name, broker, environment } = instance.profile;
    const profile = { id, name, currency, broker, environment };
    const text = JSON.stringify(profile);
    if (instance.written === text) return [];
    return [
      async () => {
        try {
          await this.options.writer.upsertAccount(profile);
        } catch (error) {
          if (!isRefusal(error)) throw error;
          instance.disabled = `the writer refused its account: ${error.message}`;
          this.say(instance, `not mirrored: ${instance.disabled}`);
          throw new Skip();
        }
        instance.written = text;
        this.written.add(id);
      },
    ];
  }

  /** The calls of a heartbeat with the instance's state as it is when written (this machine's clock). */
  private beatCalls(instance: Instance): Call[] {
    const account = this.profileCall(instance);
    if (!this.currencyOf(instance)) return [];
    return [
      ...account,
      async () => {
        if (instance.disabled) return;
        await this.options.writer.heartbeat(instance.profile.account, {
          state: instance.state ?? 'running',
          strategy: instance.strategy,
          message: instance.message,
          time: new Date(Date.now()).toISOString(),
        });
        this.written.add(instance.profile.account);
      },
    ];
  }

  private setState(instance: Instance, state: BotState, message: string | null): boolean {
    if (instance.state === state && instance.message === message) return false;
    const was = instance.state;
    instance.state = state;
    instance.message = message;
    if (state !== 'error') instance.errorAtMs = undefined;
    if (was !== undefined || state !== 'running') this.say(instance, `bot ${state}${message ? ` (${message})` : ''}`);
    return true;
  }

  private async planBeat(instance: Instance, atMs: number): Promise<Call[]> {
    const skew = instance.skew(atMs - Date.now());
    if (skew) this.say(instance, skew);
    if (instance.state === undefined) this.setState(instance, 'running', null);
    const { errorSeconds } = this.options.config;
    if (instance.state === 'error' && instance.errorAtMs !== undefined && Date.now() - instance.errorAtMs >= errorSeconds * 1000)
      this.setState(instance, 'running', null);
    return this.beatCalls(instance);
  }

  private async planState(instance: Instance, state: 'running' | 'stopped'): Promise<Call[]> {
    const message = state === 'stopped' ? 'hummingbot went offline: its MQTT bridge stopped (the app closed, or `mqtt stop`)' : null;
    return this.setState(instance, state, message) ? this.beatCalls(instance) : [];
  }

  private async planError(instance: Instance, text: string): Promise<Call[]> {
    const was = instance.state;
    // A record logged with its exception carries the traceback after its first line: the message is that line.
    const first = text.split('\n').find((line) => line.trim() !== '');
    this.setState(instance, 'error', clip(first?.trim() || 'hummingbot logged an error'));
    instance.errorAtMs = Date.now();
    // A bot in error that logs another error: its heartbeats carry the newest message (every 10 s), not each log.
    return was === 'error' ? [] : this.beatCalls(instance);
  }

  private async planPerformance(instance: Instance, reports: Map<string, ControllerReport>): Promise<Call[]> {
    const entries = [...reports];
    if (entries.length && entries.every(([, report]) => 'stopped' in report)) {
      const stopped = this.setState(
        instance,
        'stopped',
        `the strategy stopped: its controllers (${entries.map(([id]) => id).join(', ')}) sent their last report`,
      );
      return stopped ? this.beatCalls(instance) : [];
    }
    const running = entries.flatMap(([id, report]) => ('stopped' in report ? [] : [[id, report] as const]));
    const calls: Call[] = [];
    const strategy = running.length ? clip(`controllers ${running.map(([id]) => id).join(', ')}`) : instance.strategy;
    let beat = strategy !== instance.strategy;
    instance.strategy = strategy;
    if (running.length && (instance.state === undefined || instance.state === 'stopped'))
      beat = this.setState(instance, 'running', null) || beat;
    if (beat) calls.push(...this.beatCalls(instance));
    const { marksSeconds } = this.options.config;
    if (instance.marksAtMs !== undefined && Date.now() - instance.marksAtMs < marksSeconds * 1000) return calls;
    if (!this.currencyOf(instance)) return calls;
    instance.marksAtMs = Date.now();
    const account = this.accountState(instance.profile.account);
    const books = Object.entries(account.positions);
    const marks = new Map<string, string[]>();
    const unplaced: string[] = [];
    for (const [controller, report] of running) {
      const pair = instance.profile.controllers[controller];
      const mark = moneyOf(report.unrealized);
      // A controller the configuration ties to a pair marks that pair's position; any other, the one position held.
      const candidates =
        pair === undefined ? (books.length === 1 ? books : []) : books.filter(([book]) => book === pair || book.startsWith(`${pair}:`));
      const [book] = candidates.length ? candidates[0] : [];
      if (book === undefined) {
        if (mark !== '0') unplaced.push(controller);
        continue;
      }
      marks.set(book, [...(marks.get(book) ?? []), mark]);
    }
    if (unplaced.length)
      this.once(
        instance.profile.account,
        `${instance.id} unplaced ${unplaced.join(',')}`,
        `the unrealized P&L of ${unplaced.join(', ')} is not shown: ${
          books.length
            ? `the instance holds ${books.length} positions and the configuration does not name the controller's trading pair ("controllers")`
            : 'the bridge knows of no open position of the instance (opened before it started mirroring?)'
        }`,
      );
    const changed: Position[] = [];
    for (const [book, values] of marks) {
      const position = account.positions[book];
      const unrealizedPL = sumDecimals(values);
      if (position.unrealizedPL === unrealizedPL) continue;
      account.positions[book] = { ...position, unrealizedPL };
      changed.push(account.positions[book]);
    }
    if (!changed.length) return calls;
    const trades = changed.map(openTradeOf);
    account.unsynced = trades;
    await this.save();
    return [...calls, ...this.profileCall(instance), this.recordCall(instance.profile.account, trades, account)];
  }

  private async planFill(instance: Instance, fill: Fill, source: string): Promise<Call[]> {
    const say = (kind: string, text: string) => this.once(instance.profile.account, `${instance.id} ${kind}`, `${source}: ${text}`);
    if (!canonicalInstrument(fill.pair)) {
      say(`pair ${fill.pair}`, `fills of ${fill.pair} are not mirrored: it is not an instrument here (2 to 12 letters or digits a side)`);
      return [];
    }
    const account = this.accountState(instance.profile.account);
    if (!this.currencyOf(instance)) account.currency = fill.quote;
    const currency = this.currencyOf(instance)!;
    if (fill.quote !== currency) {
      say(`quote ${fill.quote}`, `fills of ${fill.pair} are not mirrored: quoted in ${fill.quote}, and the account is in ${currency}`);
      return [];
    }
    const key = fillKeyOf(fill);
    const seen = replayed(account, key, Date.parse(fill.time));
    if (seen) {
      this.replayedFills += 1;
      if (seen === 'old')
        say(
          'old fill',
          `fill ${key} of ${fill.pair}, dated ${fill.time}, is over an hour older than the newest fill mirrored (${new Date(account.newest!).toISOString()}): taken as mirrored already`,
        );
      return [];
    }
    const { fee, unpriced } = feeInQuote(fill, fill.fee, this.options.config.feeRates);
    for (const token of unpriced)
      say(
        `fee in ${token}`,
        `fees paid in ${token} are left out of the realized P&L: give the value of one ${token} in ${currency} as "feeRates": {"${token}": "…"} in the configuration`,
      );
    const book = bookOf(fill);
    const position = account.positions[book];
    // A fill dated before the position it changes (it reached hummingbot late) counts from the position's open.
    const at = position && fill.time < position.openTime ? { ...fill, time: position.openTime } : fill;
    const applied = applyFill(position, at, fee);
    if (applied.unmatched)
      say(
        `unmatched ${book}`,
        `a CLOSE fill of ${fill.pair} closes ${applied.unmatched} more than the position the bridge knows of (opened before it started mirroring?): that part is not mirrored`,
      );
    if (applied.position) account.positions[book] = applied.position;
    else delete account.positions[book];
    account.unsynced = applied.trades;
    await this.save();
    if (!applied.trades.length) return [];
    return [...this.profileCall(instance), this.recordCall(instance.profile.account, applied.trades, account)];
  }

  /** The call that gives `trades` to the writer as hummingbot's own record; a refused one is said once. */
  private recordCall(accountId: string, trades: readonly Trade[], account: AccountState): Call {
    return async () => {
      const given = trades.map((trade) => ({ ...trade, accountId }));
      for (const result of await this.options.writer.recordTrades(accountId, given, { correct: true })) {
        if (!('error' in result)) {
          if (result.outcome !== 'unchanged') this.written.add(accountId);
          continue;
        }
        if (result.error.code === 'UNAVAILABLE') throw result.error;
        this.once(accountId, `refused ${result.id}`, `the writer refused trade ${result.id}: ${result.error.message}`);
      }
      if (account.unsynced === trades) account.unsynced = [];
    };
  }
}
