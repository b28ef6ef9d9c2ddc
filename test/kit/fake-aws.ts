/**
 * A fake of the three AWS APIs the alerts call besides DynamoDB, on one loopback port, answering in each one's own
 * protocol: SNS `Publish` (the Query protocol: a form in, XML out, as the SDK's client sends it), SSM
 * `GetParametersByPath` and Secrets Manager `GetSecretValue` (JSON 1.1: a POST of JSON named by X-Amz-Target, as
 * api/alerts/aws-json.ts makes it by hand). The callers reach it through the SDK's own endpoint variables (`env`), as
 * they would reach AWS: no code of the alerts knows it is a fake.
 *
 * It takes only what AWS would. Every call must carry a SigV4 signature by the local credentials (LOCAL_AWS_ENV),
 * scoped to us-east-1 and to the service called, signing the host, the date, the content type and every x-amz-*
 * header, dated within 15 minutes: the fake computes the signature itself (node:crypto, not the SDK's signer) and
 * refuses any other with AWS's own error. A JSON call must be a POST of `application/x-amz-json-1.1` to a target the
 * service has, its input of the types and ranges of the API reference (SSM's MaxResults 1 to 10, a NextToken it
 * gave). SSM stops a page early as the real service may ("best effort", with a NextToken), so every read of the
 * parameters follows its pages. That is what proves the hand-signed calls right: they use no service client.
 */
import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOCAL_AWS_ENV } from '../../scripts/local-stack/local-db';

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
const SKEW_MS = 15 * 60_000;
/** The JSON 1.1 services by their target prefix: the name their signatures are scoped to. */
const SIGNING_NAMES: Record<string, string> = { AmazonSSM: 'ssm', secretsmanager: 'secretsmanager' };

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/**
 * Why AWS would refuse the signature of this request to `service`, or undefined when it is right: the SigV4
 * algorithm as AWS documents it, for a request to `/` without a query (all these APIs take).
 */
export function signatureRefusal(
  request: { method: string; path: string; headers: IncomingHttpHeaders; body: Buffer },
  service: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
  now = Date.now(),
): Refusal | undefined {
  const invalid = (message: string): Refusal => ({ status: 400, code: 'InvalidSignatureException', message });
  const authorization = request.headers.authorization;
  if (!authorization) return { status: 400, code: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const parts =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (!parts) return { status: 400, code: 'IncompleteSignatureException', message: `Authorization header malformed: ${authorization}` };
  const [, keyId, day, region, scopeService, signedList, signature] = parts;
  if (keyId !== credentials.accessKeyId)
    return { status: 400, code: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  if (region !== REGION) return invalid(`Credential should be scoped to a valid region, not '${region}'.`);
  if (scopeService !== service) return invalid(`Credential should be scoped to correct service: '${service}'.`);
  const date = String(request.headers['x-amz-date'] ?? '');
  const at = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(date);
  if (!at) return invalid('The request must carry its date in X-Amz-Date (yyyyMMddTHHmmssZ).');
  if (!date.startsWith(day))
    return invalid(
      `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${day}' != '${date.slice(0, 8)}'`,
    );
  if (Math.abs(Date.UTC(+at[1], +at[2] - 1, +at[3], +at[4], +at[5], +at[6]) - now) > SKEW_MS) return invalid(`Signature expired: ${date}`);
  const signed = signedList.split(';');
  const unsigned = [
    'host',
    'x-amz-date',
    'content-type',
    ...Object.keys(request.headers).filter((name) => name.startsWith('x-amz-')),
  ].filter((name) => !signed.includes(name));
  if (unsigned.length) return invalid(`Headers that must be signed are not: ${[...new Set(unsigned)].join(', ')}`);
  const missing = signed.filter((name) => request.headers[name] === undefined);
  if (missing.length) return invalid(`Signed headers the request does not carry: ${missing.join(', ')}`);
  const payload = sha256(request.body);
  const declared = request.headers['x-amz-content-sha256'];
  if (declared !== undefined && declared !== payload)
    return invalid('The provided x-amz-content-sha256 header does not match what was computed.');
  const canonical = [
    request.method,
    request.path,
    '',
    ...signed.map((name) => `${name}:${String(request.headers[name]).trim().replace(/\s+/g, ' ')}`),
    '',
    signedList,
    payload,
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const key = [day, region, service, 'aws4_request'].reduce<Buffer>(
    (k, part) => hmac(k, part),
    Buffer.from(`AWS4${credentials.secretAccessKey}`),
  );
  const expected = hmac(key, ['AWS4-HMAC-SHA256', date, scope, sha256(canonical)].join('\n'));
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex')))
    return invalid(
      'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
    );
  return undefined;
}

export class FakeAws {
  readonly published: Published[] = [];
  /** SSM parameters by full name (SecureString). */
  readonly parameters = new Map<string, string>();
  /** Secrets Manager secrets by name. */
  readonly secrets = new Map<string, string>();
  /** Calls the fake took (signed right), by action, e.g. `GetParametersByPath`. */
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
      const answer = target
        ? this.json(target, { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body })
        : this.query({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body });
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

  private credentials() {
    return { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY };
  }

  /** The fault scripted for the next call of `action`, if any (used up by it). */
  private faultFor(action: string): Refusal | undefined {
    const fault = this.faults.find((entry) => entry.action === action && entry.times > 0);
    if (!fault) return undefined;
    fault.times--;
    return { status: FAULT_STATUS[fault.code], code: fault.code, message: `${fault.code} scripted by the test` };
  }

  /** SNS: the Query protocol. */
  private query(request: { method: string; path: string; headers: IncomingHttpHeaders; body: Buffer }): Answer {
    const form = new URLSearchParams(request.body.toString('utf8'));
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
    const refusal = signatureRefusal(request, 'sns', this.credentials());
    if (refusal) return error(refusal);
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
  private json(target: string, request: { method: string; path: string; headers: IncomingHttpHeaders; body: Buffer }): Answer {
    const [prefix, action = ''] = target.split('.');
    // AWS names its own refusals (the signature's) with their namespace, the service's errors without.
    const error = ({ status, code, message }: Refusal, namespace = ''): Answer => {
      this.refused.push({ action, code });
      return { status, type: JSON_TYPE, body: JSON.stringify({ __type: `${namespace}${code}`, message }) };
    };
    const service = SIGNING_NAMES[prefix];
    if (!service || request.method !== 'POST' || request.path !== '/')
      return error({
        status: 400,
        code: 'UnknownOperationException',
        message: `the fake does not know ${request.method} ${request.path} ${target}`,
      });
    const refusal = signatureRefusal(request, service, this.credentials());
    if (refusal) return error(refusal, 'com.amazon.coral.service#');
    if (request.headers['content-type'] !== JSON_TYPE)
      return error({ status: 400, code: 'UnknownOperationException', message: `content-type must be ${JSON_TYPE}` });
    let input: Record<string, any>;
    try {
      input = JSON.parse(request.body.toString('utf8') || '{}');
    } catch {
      return error({ status: 400, code: 'SerializationException', message: 'the body is not JSON' });
    }
    if (!input || typeof input !== 'object' || Array.isArray(input))
      return error({ status: 400, code: 'SerializationException', message: 'the body is not a JSON object' });
    const fault = this.faultFor(action);
    if (fault) return error(fault);
    if (target === 'AmazonSSM.GetParametersByPath') return this.parametersByPath(input, error);
    if (target === 'secretsmanager.GetSecretValue') return this.secretValue(input, error);
    return error({ status: 400, code: 'UnknownOperationException', message: `the fake does not know ${target}` });
  }

  /** SSM GetParametersByPath, its input checked as the API reference gives it. */
  private parametersByPath(input: Record<string, any>, error: (refusal: Refusal) => Answer): Answer {
    const invalid = (message: string) => error({ status: 400, code: 'ValidationException', message });
    const types: Record<string, string> = {
      Path: 'string',
      Recursive: 'boolean',
      WithDecryption: 'boolean',
      MaxResults: 'number',
      NextToken: 'string',
    };
    for (const [name, value] of Object.entries(input)) {
      if (name === 'ParameterFilters') continue;
      // Stricter than AWS, which ignores a member it does not know: a misspelt one would silently change the read.
      if (!types[name]) return error({ status: 400, code: 'SerializationException', message: `unknown member ${name}` });
      if (typeof value !== types[name])
        return error({ status: 400, code: 'SerializationException', message: `${name} must be a ${types[name]}` });
    }
    if (typeof input.Path !== 'string' || !input.Path.startsWith('/') || input.Path.length > 2048)
      return invalid("Value at 'path' failed to satisfy constraint: Member must start with a slash and be at most 2048 characters");
    if (input.MaxResults !== undefined && (!Number.isInteger(input.MaxResults) || input.MaxResults < 1 || input.MaxResults > 10))
      return invalid(`Value '${input.MaxResults}' at 'maxResults' failed to satisfy constraint: Member must have value between 1 and 10`);
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
    if (typeof input.SecretId !== 'string' || !input.SecretId || input.SecretId.length > 2048)
      return error({ status: 400, code: 'InvalidParameterException', message: 'SecretId must be a string of 1 to 2048 characters' });
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
