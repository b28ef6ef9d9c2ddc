/**
 * A fake of the three AWS APIs the alerts call besides DynamoDB, on one loopback port, answering in each one's own
 * protocol as the real SDK clients expect it: SNS `Publish` (the Query protocol: a form in, XML out), SSM
 * `GetParametersByPath` and Secrets Manager `GetSecretValue` (JSON 1.1, by X-Amz-Target). The clients reach it
 * through the SDK's own service endpoint variables (`env`), as they would reach AWS: no code of the alerts knows
 * it is a fake. Signatures are not checked (DynamoDB Local does not check them either).
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

export class FakeAws {
  readonly published: Published[] = [];
  /** SSM parameters by full name (SecureString). */
  readonly parameters = new Map<string, string>();
  /** Secrets Manager secrets by name. */
  readonly secrets = new Map<string, string>();
  /** Calls by action, e.g. `GetParametersByPath`. */
  readonly calls: string[] = [];
  /** When set, Publish answers this error code (403). */
  refusePublish?: string;
  private server?: Server;

  async start(): Promise<this> {
    this.server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      const target = String(request.headers['x-amz-target'] ?? '');
      const answer = target ? this.json(target, JSON.parse(body || '{}')) : this.query(new URLSearchParams(body));
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

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** SNS: the Query protocol. */
  private query(form: URLSearchParams): { status: number; type: string; body: string } {
    const action = form.get('Action') ?? '';
    this.calls.push(action);
    const xmlns = 'http://sns.amazonaws.com/doc/2010-03-31/';
    if (action !== 'Publish' || this.refusePublish) {
      const code = this.refusePublish ?? 'InvalidAction';
      return {
        status: this.refusePublish ? 403 : 400,
        type: 'text/xml',
        body: `<ErrorResponse xmlns="${xmlns}"><Error><Type>Sender</Type><Code>${code}</Code><Message>refused by the fake</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
      };
    }
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
  private json(target: string, input: any): { status: number; type: string; body: string } {
    const action = target.split('.').pop()!;
    this.calls.push(action);
    const type = 'application/x-amz-json-1.1';
    const error = (name: string, message: string) => ({ status: 400, type, body: JSON.stringify({ __type: name, message }) });
    if (target === 'AmazonSSM.GetParametersByPath') {
      const path = String(input.Path).replace(/\/?$/, '/');
      const Parameters = [...this.parameters]
        .filter(([name]) => name.startsWith(path) && (input.Recursive || !name.slice(path.length).includes('/')))
        .map(([Name, Value]) => ({
          Name,
          Type: 'SecureString',
          Value: input.WithDecryption ? Value : 'AQICAHh-encrypted-blob',
          Version: 1,
          DataType: 'text',
          ARN: `arn:aws:ssm:us-east-1:123456789012:parameter${Name}`,
          LastModifiedDate: Date.now() / 1000,
        }));
      return { status: 200, type, body: JSON.stringify({ Parameters }) };
    }
    if (target === 'secretsmanager.GetSecretValue') {
      const secret = this.secrets.get(String(input.SecretId));
      if (secret === undefined) return error('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
      return {
        status: 200,
        type,
        body: JSON.stringify({
          ARN: `arn:aws:secretsmanager:us-east-1:123456789012:secret:${input.SecretId}-AbCdEf`,
          Name: input.SecretId,
          SecretString: secret,
          VersionId: randomUUID(),
          VersionStages: ['AWSCURRENT'],
          CreatedDate: Date.now() / 1000,
        }),
      };
    }
    return error('UnknownOperationException', `the fake does not know ${target}`);
  }
}
