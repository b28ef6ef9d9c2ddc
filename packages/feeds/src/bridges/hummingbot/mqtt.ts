/**
 * The MQTT side of the hummingbot bridge: a connection to hummingbot's broker, subscribed to every instance of the
 * namespace (`<namespace>/#`, as hummingbot-api's `hbot/+/…` subscriptions, and deeper for ids with dots), each
 * message handed to the bridge as it comes. A connection refused, lost or never answered is tried again with
 * back-off (1 s, doubling up to `maxBackoffMs`), said once when it starts failing (or fails differently) and once
 * when the broker answers again. The password is given to the client only: the lines said name the broker by its
 * URL without credentials.
 */
import { connect, type IClientOptions } from 'mqtt';

export interface BrokerOptions {
  /** `mqtt://host:1883` (or `mqtts://`, `ws://`, `wss://`), without credentials. */
  url: string;
  namespace: string;
  username?: string;
  password?: string;
  /**
   * A client id of its own: the broker keeps the bridge's session while it is away (a persistent session), so a
   * broker that queues messages for it (mosquitto with `queue_qos0_messages true`) hands over what it missed.
   * Without one, a session lasts as long as the connection.
   */
  clientId?: string;
  maxBackoffMs?: number;
  signal: AbortSignal;
  report: (line: string) => void;
  onMessage: (topic: string, payload: Buffer) => void;
}

/** The broker's URL as said: no credentials, ever. */
function brokerName(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'the broker';
  }
}

/** Why a connection failed, in a few words. */
function failureOf(error: Error & { code?: string | number }): string {
  if (error.code === 4 || error.code === 5 || error.code === 134 || error.code === 135)
    return `refused the username or password (${error.message.replace(/^Connection refused: /, '')})`;
  if (typeof error.code === 'string') return `cannot be reached (${error.code})`;
  return error.message;
}

/** Listens until `signal` aborts; resolves once the connection is closed. */
export async function listenToBroker(options: BrokerOptions): Promise<void> {
  const name = `hummingbot's broker at ${brokerName(options.url)}`;
  const cap = options.maxBackoffMs ?? 60_000;
  const say = (line: string) => options.report(`bridge: ${line}`);
  const settings: IClientOptions = {
    username: options.username,
    password: options.password,
    clientId: options.clientId ?? `trading-bot-api-${process.pid}-${Math.random().toString(16).slice(2, 10)}`,
    clean: options.clientId === undefined,
    // Reconnecting is ours: with back-off, and said once.
    reconnectPeriod: 0,
    connectTimeout: 10_000,
    keepalive: 30,
    protocolVersion: 4,
  };
  const client = connect(options.url, settings);
  let connected = false;
  let first = true;
  let failing: string | undefined;
  let lastError: string | undefined;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;
  const topic = `${options.namespace}/#`;

  client.on('connect', () => {
    connected = true;
    failures = 0;
    // hummingbot publishes at QoS 0; QoS 1 as hummingbot-api asks lets a broker that queues for the session keep them.
    client.subscribe(topic, { qos: 1 }, (error, granted) => {
      if (error || granted?.some((grant) => grant.qos === 128)) {
        say(`${name} refused the subscription to ${topic}${error ? `: ${error.message}` : ' (not authorized to read it)'}`);
        return;
      }
      // Said once subscribed: from then on every message published is received.
      if (failing) say(`${name} answers again`);
      else if (first) say(`listening to ${name} for ${topic}`);
      failing = undefined;
      first = false;
    });
  });
  client.on('message', (received, payload) => {
    try {
      options.onMessage(received, payload);
    } catch (error) {
      // A fault of the bridge's own must not end the connection's other messages.
      say(`a message of ${received} could not be handled and is skipped: ${(error as Error).stack ?? String(error)}`);
    }
  });
  client.on('error', (error) => {
    lastError = failureOf(error as Error & { code?: string | number });
  });
  client.on('close', () => {
    if (options.signal.aborted) return;
    const why = lastError ?? (connected ? 'closed the connection' : `did not answer within ${settings.connectTimeout! / 1000} s`);
    connected = false;
    lastError = undefined;
    failures += 1;
    if (why !== failing) say(`${name}: ${why}; trying again, backing off up to ${Math.round(cap / 1000)} s`);
    failing = why;
    clearTimeout(timer);
    const delay = Math.min(1000 * 2 ** Math.min(failures - 1, 16), cap);
    timer = setTimeout(() => {
      if (!options.signal.aborted) client.reconnect();
    }, delay);
  });

  if (!options.signal.aborted) await new Promise((resolve) => options.signal.addEventListener('abort', resolve, { once: true }));
  clearTimeout(timer);
  await client.endAsync(true);
}
