/**
 * A fake of the three AWS APIs the alerts call besides DynamoDB, on one loopback port, answering in each one's own
 * protocol as the SDK's clients speak it: SNS `Publish` (the Query protocol: a form in, XML out), SSM
 * `GetParametersByPath` and Secrets Manager `GetSecretValue` (JSON 1.1: a POST of JSON named by X-Amz-Target). The
 * callers reach it through the SDK's own endpoint variables (`env`), as they would reach AWS: no code of the alerts
 * knows it is a fake. Signing is the SDK's own business, not checked here. SSM stops a page early as the real service
 * may ("best effort", with a NextToken), so every read of the parameters must follow its pages.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Published {
  TopicArn: string;
  Message: string;
  MessageStructure?: string;
  Subject?: string;
  MessageId: string;
}

/** Errors a test can have an action answer, with the status AWS answers them with. */
const FAULT_STATUS = { AccessDeniedException: 400, ThrottlingException: 400, InternalServerError: 500 } as const;
export type FaultCode = keyof typeof FAULT_STATUS;

type Answer = { status: number; type: string; body: string };
type Refusal = { status: number; code: string; message: string };

const REGION = 'us-east-1';
const JSON_TYPE = 'application/x-amz-json-1.1';

export class FakeAws {
  readonly published: Published[] = [];
  /** SSM parameters by full name (SecureString). */
  readonly parameters = new Map<string, string>();
  /** Secrets Manager secrets by name. */
  readonly secrets = new Map<string, string>();
  /** Calls the fake took, by action, e.g. `GetParametersByPath`. */
  readonly calls: string[] = [];
  /** The inputs of the JSON calls it took, in order. */
  readonly inputs: { action: string; input: Record<string, any> }[] = [];
  /** Calls it refused, and why (the error it answered). */
  readonly refused: { action: string; code: string }[] = [];
  /** When set, Publish answers this error code (403). */
  refusePublish?: string;
  /** The most parameters SSM answers in one page, whatever MaxResults asked (its own limit, in the real service). */
  parametersPerPage = 2;
  private readonly faults: { action: string; code: FaultCode; times: number }[] = [];
  private readonly pageTokens = new Map<string, { path: string; from: number }>();
  private server?: Server;

  async start(): Promise<this> {
    this.server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const target = String(request.headers['x-amz-target'] ?? '');
      const answer = target ? this.json(target, body) : this.query(body);
      response.writeHead(answer.status, { 'content-type': answer.type, 'x-amzn-requestid': randomUUID() });
      response.end(answer.body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** The SDK's variables that send SNS, SSM and Secrets Manager calls here. */
  get env(): Record<string, string> {
    return { AWS_ENDPOINT_URL_SNS: this.endpoint, AWS_ENDPOINT_URL_SSM: this.endpoint, AWS_ENDPOINT_URL_SECRETS_MANAGER: this.endpoint };
  }

  /** Answers the next `times` calls of `action` (e.g. `GetParametersByPath`) with the error `code`. */
  fail(action: string, code: FaultCode, times = 1): void {
    this.faults.push({ action, code, times });
  }

  /** Forgets the faults not yet answered. */
  heal(): void {
    this.faults.length = 0;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The fault scripted for the next call of `action`, if any (used up by it). */
  private faultFor(action: string): Refusal | undefined {
    const fault = this.faults.find((entry) => entry.action === action && entry.times > 0);
    if (!fault) return undefined;
    fault.times--;
    return { status: FAULT_STATUS[fault.code], code: fault.code, message: `${fault.code} scripted by the test` };
  }

  /** SNS: the Query protocol. */
  private query(body: Buffer): Answer {
    const form = new URLSearchParams(body.toString('utf8'));
    const action = form.get('Action') ?? '';
    const xmlns = 'http://sns.amazonaws.com/doc/2010-03-31/';
    const error = ({ status, code, message }: Refusal): Answer => {
      this.refused.push({ action, code });
      return {
        status,
        type: 'text/xml',
        body: `<ErrorResponse xmlns="${xmlns}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
      };
    };
    if (action !== 'Publish') return error({ status: 400, code: 'InvalidAction', message: `the fake does not know ${action}` });
    if (this.refusePublish) return error({ status: 403, code: this.refusePublish, message: 'refused by the fake' });
    this.calls.push(action);
    const MessageId = randomUUID();
    this.published.push({
      TopicArn: form.get('TopicArn') ?? '',
      Message: form.get('Message') ?? '',
      MessageStructure: form.get('MessageStructure') ?? undefined,
      Subject: form.get('Subject') ?? undefined,
      MessageId,
    });
    return {
      status: 200,
      type: 'text/xml',
      body: `<PublishResponse xmlns="${xmlns}"><PublishResult><MessageId>${MessageId}</MessageId></PublishResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`,
    };
  }

  /** SSM and Secrets Manager: JSON 1.1. */
  private json(target: string, body: Buffer): Answer {
    const action = target.split('.')[1] ?? '';
    const error = ({ status, code, message }: Refusal): Answer => {
      this.refused.push({ action, code });
      return { status, type: JSON_TYPE, body: JSON.stringify({ __type: code, message }) };
    };
    const input: Record<string, any> = JSON.parse(body.toString('utf8') || '{}');
    const fault = this.faultFor(action);
    if (fault) return error(fault);
    if (target === 'AmazonSSM.GetParametersByPath') return this.parametersByPath(input, error);
    if (target === 'secretsmanager.GetSecretValue') return this.secretValue(input, error);
    return error({ status: 400, code: 'UnknownOperationException', message: `the fake does not know ${target}` });
  }

  /** SSM GetParametersByPath. */
  private parametersByPath(input: Record<string, any>, error: (refusal: Refusal) => Answer): Answer {
    let from = 0;
    if (input.NextToken !== undefined) {
      const page = this.pageTokens.get(input.NextToken);
      if (!page || page.path !== input.Path)
        return error({ status: 400, code: 'InvalidNextToken', message: 'The specified token is not valid.' });
      from = page.from;
    }
    this.calls.push('GetParametersByPath');
    this.inputs.push({ action: 'GetParametersByPath', input });
    const path = input.Path.replace(/\/?$/, '/');
    const matching = [...this.parameters]
      .filter(([name]) => name.startsWith(path) && (input.Recursive || !name.slice(path.length).includes('/')))
      .sort(([a], [b]) => a.localeCompare(b));
    const size = Math.min(input.MaxResults ?? 10, this.parametersPerPage);
    const Parameters = matching.slice(from, from + size).map(([Name, Value]) => ({
      Name,
      Type: 'SecureString',
      Value: input.WithDecryption ? Value : 'AQICAHh-encrypted-blob',
      Version: 1,
      DataType: 'text',
      ARN: `arn:aws:ssm:${REGION}:123456789012:parameter${Name}`,
      LastModifiedDate: Date.now() / 1000,
    }));
    let NextToken: string | undefined;
    if (from + size < matching.length) {
      NextToken = randomUUID();
      this.pageTokens.set(NextToken, { path: input.Path, from: from + size });
    }
    return { status: 200, type: JSON_TYPE, body: JSON.stringify({ Parameters, ...(NextToken ? { NextToken } : {}) }) };
  }

  /** Secrets Manager GetSecretValue. */
  private secretValue(input: Record<string, any>, error: (refusal: Refusal) => Answer): Answer {
    this.calls.push('GetSecretValue');
    this.inputs.push({ action: 'GetSecretValue', input });
    const secret = this.secrets.get(input.SecretId);
    if (secret === undefined)
      return error({ status: 400, code: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." });
    return {
      status: 200,
      type: JSON_TYPE,
      body: JSON.stringify({
        ARN: `arn:aws:secretsmanager:${REGION}:123456789012:secret:${input.SecretId}-AbCdEf`,
        Name: input.SecretId,
        SecretString: secret,
        VersionId: randomUUID(),
        VersionStages: ['AWSCURRENT'],
        CreatedDate: Date.now() / 1000,
      }),
    };
  }
}
