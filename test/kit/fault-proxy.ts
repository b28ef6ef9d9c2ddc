/**
 * A fault-injecting proxy on loopback between the SDK and DynamoDB Local, so the SDK's real retry and timeout code runs
 * against real network behaviour: refused connections, requests that never get an answer, slow answers,
 * throttling errors, Query/Scan pages cut short (as the 1 MB limit does), and BatchGetItem UnprocessedKeys.
 */
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import tables from '../../resources/tables.js';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createWriter, type Writer } from '@trading-bot-api/writer';
import { random as seeded } from '../../scripts/demo/dataset';
import { LOCAL_CLIENT_CONFIG } from '../../scripts/local-stack/local-db';

export type Fault =
  | { kind: 'refuse' }
  | { kind: 'hang' }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'throttle'; error: 'ProvisionedThroughputExceededException' | 'ThrottlingException' }
  /** DynamoDB refusing the request itself: a bug of ours, not an outage. */
  | { kind: 'validation-error' }
  /** DynamoDB Streams refusing a shard iterator older than its 15 minutes. */
  | { kind: 'expired-iterator' }
  /**
   * DynamoDB refusing the caller for its configuration, as it answers in AWS: a permission the role lacks, a table
   * that does not exist, credentials it does not know. Not an outage: no retry mends it.
   */
  | { kind: 'refusal'; error: keyof typeof REFUSALS }
  | { kind: 'short-pages'; keep: number }
  | { kind: 'unprocessed-keys' }
  /**
   * Random faults of a flaky network, from a seeded generator: a share of requests is throttled before it reaches
   * the database, and a share is applied and then loses its answer (the connection drops), so the client retries
   * a request that already took effect.
   */
  | { kind: 'chaos'; throttle: number; dropAnswer: number; seed: number };

type AttributeMap = Record<string, Record<string, unknown>>;

const THROTTLE_TYPES = {
  ProvisionedThroughputExceededException: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
  ThrottlingException: 'com.amazon.coral.availability#ThrottlingException',
};

/** The headers of an answer the proxy makes itself, as DynamoDB's. */
const ANSWERED_HEADERS = { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'fault-proxy' };

/** DynamoDB's answers to a misconfigured caller (status 400), with its messages, for an operation on a table. */
const REFUSALS = {
  AccessDeniedException: (operation: string, table: string) => ({
    __type: 'com.amazon.coral.service#AccessDeniedException',
    message: `User: arn:aws:sts::123456789012:assumed-role/trading-bot-api-test/fn is not authorized to perform: dynamodb:${operation} on resource: arn:aws:dynamodb:us-east-1:123456789012:table/${table} because no identity-based policy allows the dynamodb:${operation} action`,
  }),
  ResourceNotFoundException: () => ({
    __type: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException',
    message: 'Requested resource not found',
  }),
  UnrecognizedClientException: () => ({
    __type: 'com.amazon.coral.service#UnrecognizedClientException',
    message: 'The security token included in the request is invalid.',
  }),
};

/** Key attributes of an item of `tableName` (and of `indexName`), to build a LastEvaluatedKey from it. */
function keyAttributes(tableName: string, indexName?: string): string[] {
  const entry = Object.entries(tables.TABLES).find(([table]) => tableName.endsWith(`-${table === 'apiKeys' ? 'api-keys' : table}`));
  if (!entry) throw new Error(`fault proxy: unknown table ${tableName}`);
  const spec = entry[1] as { partitionKey: string; sortKey?: string; indexes?: Record<string, string> };
  const names = [spec.partitionKey, ...(spec.sortKey ? [spec.sortKey] : [])];
  if (indexName) names.push(spec.indexes![indexName]);
  return names;
}

export class FaultProxy {
  private server: Server;
  private sockets = new Set<Socket>();
  /** Connections holding a request the proxy never answers (`hang`). */
  private hung = new Set<Socket>();
  private fault?: Fault;
  private remaining = 0;
  /** Requests (of `only`, when set) let through before the fault starts. */
  private skip = 0;
  private only?: string;
  private random = () => Math.random();
  /** Answers dropped after the request was applied (chaos). */
  dropped = 0;
  /** Requests that reached the proxy, by DynamoDB operation. */
  readonly seen: string[] = [];
  /** Each write request seen: its operation and the items it writes, by table. */
  readonly writes: { operation: string; tables: string[] }[] = [];
  port = 0;

  constructor(private readonly target: string) {
    this.server = this.createServer();
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  /**
   * Injects `fault` into the next `times` requests (Infinity: until cleared); with `only`, into requests of that
   * DynamoDB operation alone (GetItem, TransactWriteItems, ...); with `after`, once that many have gone through.
   */
  async inject(fault: Fault, times = Infinity, options: { only?: string; after?: number } = {}): Promise<void> {
    await this.clear();
    this.fault = fault;
    this.remaining = times;
    this.only = options.only;
    this.skip = options.after ?? 0;
    if (fault.kind === 'chaos') this.random = seeded(fault.seed);
    if (fault.kind === 'refuse') await this.stopListening();
  }

  /**
   * Back to a transparent proxy; open hung connections are dropped. Idle kept-alive ones stay: dropped, each would be
   * a stale socket in the SDK's pool that fails the next test's request (with one attempt, as some tests set) as a
   * fault nobody injected.
   */
  async clear(): Promise<void> {
    const wasRefusing = this.fault?.kind === 'refuse';
    this.fault = undefined;
    this.only = undefined;
    this.skip = 0;
    for (const socket of this.hung) socket.destroy();
    this.hung.clear();
    if (wasRefusing) {
      this.server = this.createServer();
      await this.start();
    }
  }

  async close(): Promise<void> {
    this.fault = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (this.server.listening) await new Promise((resolve) => this.server.close(resolve));
  }

  private async stopListening(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private createServer(): Server {
    const server = createServer((req, res) => {
      // The database may be gone by the time a late request is forwarded: the client sees a dropped connection.
      this.handle(req, res).catch(() => res.destroy());
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    return server;
  }

  private takeFault(operation: string): Fault | undefined {
    if (!this.fault || this.remaining <= 0) return undefined;
    if (this.only !== undefined && operation !== this.only) return undefined;
    if (this.skip > 0) {
      this.skip -= 1;
      return undefined;
    }
    this.remaining -= 1;
    return this.fault;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    this.seen.push(operation);
    const written = writtenTables(operation, JSON.parse(body.toString('utf8') || '{}'));
    if (written) this.writes.push({ operation, tables: written });
    let fault = this.takeFault(operation);
    if (fault?.kind === 'chaos') {
      const roll = this.random();
      if (roll < fault.throttle) fault = { kind: 'throttle', error: 'ThrottlingException' };
      else if (roll < fault.throttle + fault.dropAnswer) {
        await this.forward(req, body);
        this.dropped += 1;
        res.socket?.destroy();
        return;
      } else fault = undefined;
    }
    if (fault?.kind === 'hang') {
      this.hung.add(req.socket);
      return;
    }
    if (fault?.kind === 'slow') await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (fault?.kind === 'validation-error') {
      res.writeHead(400, ANSWERED_HEADERS);
      res.end(
        JSON.stringify({ __type: 'com.amazon.coral.validate#ValidationException', message: 'One or more parameter values were invalid' }),
      );
      return;
    }
    if (fault?.kind === 'expired-iterator') {
      res.writeHead(400, ANSWERED_HEADERS);
      res.end(
        JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#ExpiredIteratorException',
          message: 'Iterator expired. The iterator was created more than 15 minutes ago.',
        }),
      );
      return;
    }
    if (fault?.kind === 'refusal') {
      const request = JSON.parse(body.toString('utf8') || '{}') as { TableName?: string; RequestItems?: object; TransactItems?: unknown[] };
      const table = request.TableName ?? Object.keys(request.RequestItems ?? {})[0] ?? '*';
      res.writeHead(400, ANSWERED_HEADERS);
      res.end(JSON.stringify(REFUSALS[fault.error](operation, table)));
      return;
    }
    if (fault?.kind === 'throttle') {
      res.writeHead(400, ANSWERED_HEADERS);
      res.end(JSON.stringify({ __type: THROTTLE_TYPES[fault.error], message: 'Rate of requests exceeds the allowed throughput.' }));
      return;
    }
    const upstream = await this.forward(req, body);
    let payload = upstream.body;
    if (upstream.status === 200 && fault?.kind === 'short-pages' && (operation === 'Query' || operation === 'Scan')) {
      payload = this.cutPage(JSON.parse(body.toString()), JSON.parse(payload.toString()), fault.keep);
    } else if (upstream.status === 200 && fault?.kind === 'unprocessed-keys' && operation === 'BatchGetItem') {
      payload = this.unprocess(JSON.parse(body.toString()), JSON.parse(payload.toString()));
    } else if (fault && fault.kind !== 'slow') {
      // A fault that does not apply to this operation is not used up by it.
      this.remaining += 1;
    }
    const headers = { ...upstream.headers };
    delete headers['content-length'];
    delete headers['x-amz-crc32'];
    res.writeHead(upstream.status, headers);
    res.end(payload);
  }

  private cutPage(
    input: { TableName: string; IndexName?: string },
    output: { Items: AttributeMap[]; Count: number; ScannedCount: number; LastEvaluatedKey?: AttributeMap },
    keep: number,
  ): Buffer {
    if (output.Items.length > keep && keep > 0) {
      const items = output.Items.slice(0, keep);
      const last = items[items.length - 1];
      const key = Object.fromEntries(keyAttributes(input.TableName, input.IndexName).map((name) => [name, last[name]]));
      Object.assign(output, { Items: items, Count: items.length, ScannedCount: items.length, LastEvaluatedKey: key });
    }
    return Buffer.from(JSON.stringify(output));
  }

  private unprocess(
    input: { RequestItems: Record<string, { Keys: AttributeMap[] }> },
    output: { Responses: Record<string, AttributeMap[]>; UnprocessedKeys?: Record<string, { Keys: AttributeMap[] }> },
  ): Buffer {
    // Everything but the first requested key is sent back as unprocessed, and its item withheld.
    const [firstTable, first] = Object.entries(input.RequestItems)[0];
    const firstKey = JSON.stringify(first.Keys[0]);
    const unprocessed: Record<string, { Keys: AttributeMap[] }> = {};
    for (const [table, { Keys }] of Object.entries(input.RequestItems)) {
      const rest = Keys.filter((key) => !(table === firstTable && JSON.stringify(key) === firstKey));
      if (rest.length) unprocessed[table] = { Keys: rest };
      const names = rest.length ? Object.keys(rest[0]) : [];
      output.Responses[table] = (output.Responses[table] ?? []).filter(
        (item) => !rest.some((key) => names.every((name) => JSON.stringify(item[name]) === JSON.stringify(key[name]))),
      );
    }
    output.UnprocessedKeys = unprocessed;
    return Buffer.from(JSON.stringify(output));
  }

  private forward(
    req: IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
    const target = new URL(this.target);
    return new Promise((resolve, reject) => {
      const upstream = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
        async (response) => {
          const chunks: Buffer[] = [];
          for await (const chunk of response) chunks.push(chunk as Buffer);
          resolve({ status: response.statusCode ?? 500, headers: response.headers, body: Buffer.concat(chunks) });
        },
      );
      upstream.on('error', reject);
      upstream.end(body);
    });
  }
}

/**
 * The table of each item a DynamoDB request writes (a transaction's items, a batch's requests), or undefined for a
 * read. `request` is the operation's input: as sent on the wire (the proxy) or as given to the SDK (the bench's meter).
 */
export function writtenTables(operation: string, request: Record<string, any>): string[] | undefined {
  if (!['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem'].includes(operation)) return undefined;
  if (operation === 'TransactWriteItems') {
    return (request.TransactItems ?? []).flatMap((item: Record<string, { TableName?: string }>) =>
      Object.entries(item)
        .filter(([kind]) => kind !== 'ConditionCheck')
        .map(([, action]) => action.TableName ?? ''),
    );
  }
  if (operation === 'BatchWriteItem')
    return Object.entries(request.RequestItems ?? {}).flatMap(([table, items]) => (items as unknown[]).map(() => table));
  return [request.TableName ?? ''];
}

/**
 * A writer through `endpoint` (a fault proxy's) whose client makes one retry where the writer's own makes three: an
 * outage the test injects (throttling, whose back-off starts at half a second) ends each call in about a second
 * instead of four, and what the writer makes of it does not depend on how often the SDK tried. A client of the bot's
 * own, as WriterOptions.client allows; `close()` releases it too.
 */
export function impatientWriter(endpoint: string, stage: string): Writer {
  const client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, ...LOCAL_CLIENT_CONFIG, maxAttempts: 2 }));
  const writer = createWriter({ stage, client });
  // The writer itself, its close() extended (a copy would not be the writer backfillAccount knows).
  const close = writer.close;
  writer.close = () => {
    close();
    client.destroy();
  };
  return writer;
}
