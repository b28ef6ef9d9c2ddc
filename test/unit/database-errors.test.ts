/**
 * What an SDK failure stands for (packages/core/src/store/errors.ts): only throttling, the network's faults, timeouts
 * and DynamoDB's own 5xx are an outage (a 503, UNAVAILABLE: retry); a missing table, permission or credentials is a
 * misconfiguration (a logged 500, MISCONFIGURED: do not retry) that names the tables; anything else is a bug,
 * returned as it is so that its stack reaches the log.
 */
import { DatabaseError, DatabaseMisconfigured, databaseError } from '@trading-bot-api/core/store/errors';

const named = (name: string, extra: Record<string, unknown> = {}, message = 'm') => Object.assign(new Error(message), { name, ...extra });

describe('an outage', () => {
  it.each([
    ['ProvisionedThroughputExceededException', 'throttled'],
    ['ThrottlingException', 'throttled'],
    ['RequestLimitExceeded', 'throttled'],
    ['InternalServerError', 'unavailable'],
    ['ServiceUnavailable', 'unavailable'],
    ['TimeoutError', 'unavailable'],
    // A plain Put or Update that met a transaction on the same item: the SDK does not retry it; the caller may.
    ['TransactionConflictException', 'unavailable'],
    ['TransactionInProgressException', 'unavailable'],
  ])('%s is %s', (name, fault) => {
    const error = databaseError(named(name), ['t']);
    expect(error).toBeInstanceOf(DatabaseError);
    expect(error).toMatchObject({ fault, reason: name });
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'])('a network fault (%s) is unavailable', (code) => {
    expect(databaseError(named('Error', { code }))).toMatchObject({ fault: 'unavailable', reason: code });
    // Node's connection attempts to each address of a name fail together as an AggregateError.
    const aggregate = Object.assign(new AggregateError([named('Error', { code })], 'connect failed'), { code: undefined });
    expect(databaseError(aggregate)).toMatchObject({ fault: 'unavailable', reason: code });
  });

  it("a request that got no HTTP answer through the SDK's retries is unavailable, also when the SDK had to wrap what was thrown", () => {
    const wrapped = (text: string) =>
      named('Error', { $metadata: { attempts: 3, totalRetryDelay: 90 } }, `AWS SDK error wrapper for ${text}`);
    expect(databaseError(wrapped('Error: connect ECONNREFUSED 127.0.0.1:1'))).toMatchObject({
      fault: 'unavailable',
      reason: 'ECONNREFUSED',
    });
    expect(databaseError(wrapped('TimeoutError: socket hang up'))).toMatchObject({ fault: 'unavailable' });
    // The same without the SDK's attempts is not known to have reached the network: a bug.
    const local = named('Error', {}, 'Pass options.removeUndefinedValues=true to remove undefined values');
    expect(databaseError(local)).toBe(local);
  });

  it('any answer DynamoDB marks as its own fault (5xx) is unavailable', () => {
    expect(databaseError(named('SomethingNew', { $fault: 'server', $metadata: { httpStatusCode: 502 } }))).toBeInstanceOf(DatabaseError);
    expect(databaseError(named('SomethingNew', { $metadata: { httpStatusCode: 500 } }))).toBeInstanceOf(DatabaseError);
  });
});

describe('a misconfiguration', () => {
  it('a table that does not exist names the tables the call asked for', () => {
    const error = databaseError(named('ResourceNotFoundException', { $fault: 'client' }, 'Requested resource not found'), [
      'trading-bot-api-prod-trades',
    ]);
    expect(error).toBeInstanceOf(DatabaseMisconfigured);
    expect(error).toMatchObject({ kind: 'table', reason: 'ResourceNotFoundException' });
    expect(error.message).toMatch(/does not exist \(trading-bot-api-prod-trades\).*stage/);
  });

  it("a permission the role lacks keeps DynamoDB's words, which name the action and the resource", () => {
    const words =
      'User: arn:aws:sts::1:assumed-role/r/f is not authorized to perform: dynamodb:Query on resource: arn:aws:dynamodb:x:1:table/t';
    const error = databaseError(named('AccessDeniedException', { $fault: 'client' }, words), ['t']);
    expect(error).toMatchObject({ kind: 'permission' });
    expect(error.message).toContain('dynamodb:Query on resource');
  });

  it("keeps only the first line of DynamoDB's words: a signature refusal that quotes its canonical request, token and all, leaks none of it", () => {
    const words =
      "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.\n\nThe Canonical String for this request should have been\n'POST\n/\n\nx-amz-security-token:IQoJb3JpZ2luX2VjEXAMPLETOKEN\n'";
    const error = databaseError(named('InvalidSignatureException', { $fault: 'client' }, words), ['t']);
    expect(error).toMatchObject({ kind: 'credentials' });
    expect(error.message).toContain('does not match the signature you provided');
    expect(error.message).not.toMatch(/EXAMPLETOKEN|security-token|Canonical/);
  });

  it.each(['UnrecognizedClientException', 'InvalidSignatureException', 'ExpiredTokenException', 'CredentialsProviderError'])(
    '%s is the credentials',
    (name) => {
      expect(databaseError(named(name, { $fault: 'client' }))).toMatchObject({ kind: 'credentials', reason: name });
    },
  );
});

describe('a bug', () => {
  it.each([
    named('ValidationException', { $fault: 'client', $metadata: { httpStatusCode: 400 } }),
    named('SerializationException', { $fault: 'client' }),
    new TypeError('Cannot read properties of undefined'),
  ])('%s is returned as it is, for its stack', (error) => {
    expect(databaseError(error, ['t'])).toBe(error);
  });
});
