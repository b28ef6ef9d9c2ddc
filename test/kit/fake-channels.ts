/**
 * Fake Telegram, Discord, Slack and webhook servers on loopback ports, answering as the services do (their documented
 * bodies, statuses and headers; see api/alerts/channels.ts), and recording what they were sent. A test scripts an
 * answer ahead (`answerNext`: a 429 with its retry_after, a 500) or takes the service down (`close`). Each service
 * also refuses what the real one refuses: a wrong token or webhook, a message over its length limit.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Received {
  path: string;
  /** The JSON body (Slack's and the others' alike). */
  body: any;
  /** The status the fake answered. */
  status: number;
}

type Scripted = { kind: 'rate-limit'; seconds: number } | { kind: 'error'; status: number };

abstract class FakeService {
  readonly requests: Received[] = [];
  private readonly script: Scripted[] = [];
  private server?: Server;
  protected port = 0;

  /** The requests the service took (answered 2xx). */
  get accepted(): Received[] {
    return this.requests.filter((request) => request.status >= 200 && request.status < 300);
  }

  /** Answers the next request so (then the ones after it normally, unless scripted too). */
  answerNext(...answers: Scripted[]): void {
    this.script.push(...answers);
  }

  /** Answers every request with `status` until `recover()`. */
  failAlways(status: number): void {
    this.failing = status;
  }

  recover(): void {
    this.failing = undefined;
  }

  private failing: number | undefined;

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.receive(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Stops answering: connections are then refused. */
  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private async receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    const scripted = this.script.shift() ?? (this.failing ? ({ kind: 'error', status: this.failing } as const) : undefined);
    const answer = scripted ? this.scriptedAnswer(scripted) : this.answer(request.method ?? 'GET', request.url ?? '/', body);
    this.requests.push({ path: request.url ?? '/', body, status: answer.status });
    response.writeHead(answer.status, answer.headers ?? { 'content-type': 'application/json' });
    response.end(answer.body);
  }

  protected abstract answer(method: string, url: string, body: any): Answer;
  protected abstract scriptedAnswer(scripted: Scripted): Answer;
}

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

const json = (status: number, value: unknown, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
});

/** Telegram's Bot API: POST /bot<token>/sendMessage. */
export class FakeTelegram extends FakeService {
  constructor(
    readonly token = '123456789:AAE-test_token-for-the-fake',
    readonly chatId = '-1001234567890',
  ) {
    super();
  }

  /** The texts of the messages it took, as sent (HTML). */
  get texts(): string[] {
    return this.accepted.map((request) => request.body.text);
  }

  protected answer(method: string, url: string, body: any): Answer {
    if (method !== 'POST' || !url.endsWith('/sendMessage')) return json(404, { ok: false, error_code: 404, description: 'Not Found' });
    if (url !== `/bot${this.token}/sendMessage`) return json(401, { ok: false, error_code: 401, description: 'Unauthorized' });
    if (String(body.chat_id) !== this.chatId) return json(400, { ok: false, error_code: 400, description: 'Bad Request: chat not found' });
    const text = String(body.text ?? '');
    // The limit counts the text once its HTML entities are parsed: tags out, entities as one character.
    const parsed = text.replace(/<[^>]+>/g, '').replace(/&(amp|lt|gt|quot);/g, '&');
    if (!parsed.length) return json(400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
    if (parsed.length > 4096) return json(400, { ok: false, error_code: 400, description: 'Bad Request: message is too long' });
    return json(200, {
      ok: true,
      result: {
        message_id: this.requests.length + 1,
        date: Math.floor(Date.now() / 1000),
        chat: { id: Number(this.chatId), type: 'supergroup' },
        text: parsed,
      },
    });
  }

  protected scriptedAnswer(scripted: Scripted): Answer {
    if (scripted.kind === 'rate-limit')
      return json(429, {
        ok: false,
        error_code: 429,
        description: `Too Many Requests: retry after ${scripted.seconds}`,
        parameters: { retry_after: scripted.seconds },
      });
    return json(scripted.status, {
      ok: false,
      error_code: scripted.status,
      description: scripted.status >= 500 ? 'Internal Server Error' : 'Bad Request',
    });
  }
}

/** A Discord webhook: POST /api/webhooks/<id>/<token>. */
export class FakeDiscord extends FakeService {
  readonly path = '/api/webhooks/1234567890/discord-webhook-token_ABC';

  get url(): string {
    return `${this.base}${this.path}`;
  }

  get contents(): string[] {
    return this.accepted.map((request) => request.body.content);
  }

  protected answer(method: string, url: string, body: any): Answer {
    const target = new URL(url, 'http://x');
    if (method !== 'POST' || target.pathname !== this.path) return json(404, { message: 'Unknown Webhook', code: 10015 });
    const content = String(body.content ?? '');
    if (!content) return json(400, { message: 'Cannot send an empty message', code: 50006 });
    if (content.length > 2000)
      return json(400, {
        message: 'Invalid Form Body',
        code: 50035,
        errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } },
      });
    if (target.searchParams.get('wait') !== 'true') return { status: 204, body: '' };
    return json(200, { id: String(this.requests.length + 1), type: 0, content, channel_id: '1', webhook_id: '1234567890' });
  }

  protected scriptedAnswer(scripted: Scripted): Answer {
    if (scripted.kind === 'rate-limit')
      return json(
        429,
        { message: 'You are being rate limited.', retry_after: scripted.seconds, global: false },
        { 'retry-after': String(Math.ceil(scripted.seconds)), 'x-ratelimit-scope': 'shared' },
      );
    return json(scripted.status, { message: scripted.status >= 500 ? '500: Internal Server Error' : 'Bad Request', code: 0 });
  }
}

/** A Slack incoming webhook: POST /services/T…/B…/…, answering `ok` or an error word, as text. */
export class FakeSlack extends FakeService {
  readonly path = '/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX';

  get url(): string {
    return `${this.base}${this.path}`;
  }

  get texts(): string[] {
    return this.accepted.map((request) => request.body.text);
  }

  protected answer(method: string, url: string, body: any): Answer {
    const text = (status: number, word: string): Answer => ({ status, headers: { 'content-type': 'text/html' }, body: word });
    if (method !== 'POST' || url !== this.path) return text(404, 'no_service');
    if (typeof body !== 'object' || (!body.text && !body.blocks)) return text(400, 'invalid_payload');
    for (const block of body.blocks ?? []) if (String(block.text?.text ?? '').length > 3000) return text(400, 'invalid_blocks');
    return text(200, 'ok');
  }

  protected scriptedAnswer(scripted: Scripted): Answer {
    if (scripted.kind === 'rate-limit')
      return { status: 429, headers: { 'content-type': 'text/html', 'retry-after': String(scripted.seconds) }, body: 'rate_limited' };
    return {
      status: scripted.status,
      headers: { 'content-type': 'text/html' },
      body: scripted.status >= 500 ? 'rollup_error' : 'invalid_payload',
    };
  }
}

/** A generic JSON webhook receiver. */
export class FakeWebhook extends FakeService {
  readonly path = '/hooks/trading-bot-alerts?key=receiver-secret-123';

  get url(): string {
    return `${this.base}${this.path}`;
  }

  get bodies(): any[] {
    return this.accepted.map((request) => request.body);
  }

  protected answer(method: string, url: string): Answer {
    if (method !== 'POST' || url !== this.path) return json(404, { error: 'not found' });
    return json(200, { received: true });
  }

  protected scriptedAnswer(scripted: Scripted): Answer {
    if (scripted.kind === 'rate-limit') return json(429, { error: 'slow down' }, { 'retry-after': String(scripted.seconds) });
    return json(scripted.status, { error: 'receiver failed' });
  }
}

/**
 * A receiver that refuses every request by quoting back what it was called at, as many servers do: an Express app's
 * `Cannot POST /hooks/<secret>`, a proxy's error page naming the whole URL, a JSON error echoing the path and query.
 * `reply` makes the answer from the path and query requested and the receiver's base URL. Any channel may be pointed
 * at it, to prove that no part of a token or URL reaches a log line.
 */
export class FakeQuoter extends FakeService {
  constructor(private readonly reply: (pathAndQuery: string, base: string) => { status: number; contentType: string; body: string }) {
    super();
  }

  protected answer(_method: string, url: string): Answer {
    const { status, contentType, body } = this.reply(url, this.base);
    return { status, headers: { 'content-type': contentType }, body };
  }

  protected scriptedAnswer(scripted: Scripted): Answer {
    return json(scripted.kind === 'error' ? scripted.status : 429, { error: 'scripted' });
  }
}

/** The settings that point a notifier at the four fakes. */
export function channelSettings(fakes: { telegram: FakeTelegram; discord: FakeDiscord; slack: FakeSlack; webhook: FakeWebhook }) {
  const { telegram, discord, slack, webhook } = fakes;
  return {
    ALERT_TELEGRAM_BOT_TOKEN: telegram.token,
    ALERT_TELEGRAM_CHAT_ID: telegram.chatId,
    ALERT_TELEGRAM_API_URL: telegram.base,
    ALERT_DISCORD_WEBHOOK_URL: discord.url,
    ALERT_SLACK_WEBHOOK_URL: slack.url,
    ALERT_WEBHOOK_URL: webhook.url,
  };
}

/** The four fakes, started; `values` configures a notifier for all of them. */
export async function startFakeChannels() {
  const [telegram, discord, slack, webhook] = await Promise.all([
    new FakeTelegram().start(),
    new FakeDiscord().start(),
    new FakeSlack().start(),
    new FakeWebhook().start(),
  ]);
  return {
    telegram,
    discord,
    slack,
    webhook,
    values: channelSettings({ telegram, discord, slack, webhook }),
    close: () => Promise.all([telegram.close(), discord.close(), slack.close(), webhook.close()]),
  };
}
