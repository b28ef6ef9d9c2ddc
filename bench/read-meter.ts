/**
 * Counts what a request costs DynamoDB: calls, items read and read capacity, summed over every call a request makes.
 * It is a middleware on a client's own stack, so the API's shared client is measured without any change to the API:
 * whatever path a handler takes (GetItem, Scan pages, Query pages, BatchGetItem retries), each call passes here.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { itemsReadBy } from '@trading-bot-api/core/store/dynamodb';

export interface ReadTally {
  calls: number;
  /** Items DynamoDB had to read: ScannedCount for Query/Scan, 1 per item found for GetItem/BatchGetItem. */
  itemsRead: number;
  /** ConsumedCapacity.CapacityUnits summed over the reading calls (the only ones the API makes). */
  consumedRcu: number;
  /** The same over the writing calls (a writer's, when one is metered: the fleet phase's heartbeats). */
  consumedWcu: number;
}

interface Capacity {
  CapacityUnits?: number;
}

interface ReadOutput {
  ConsumedCapacity?: Capacity | Capacity[];
}

const zero = (): ReadTally => ({ calls: 0, itemsRead: 0, consumedRcu: 0, consumedWcu: 0 });

const WRITES = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;

function capacityOf(consumed: ReadOutput['ConsumedCapacity']): number {
  const list = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  return list.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
}

/**
 * One meter per process. Requests are measured one at a time, so a single running tally (reset before a request,
 * taken after it) attributes every call to the request that made it.
 */
export class ReadMeter {
  private tally = zero();

  /**
   * Adds the counting middleware to `client`. The `initialize` step runs before serialization, so setting
   * `ReturnConsumedCapacity` on `args.input` there reaches the wire; the output it sees is the parsed response.
   * (A DocumentClient shares its stack with the client it wraps.)
   */
  attach(client: DynamoDBDocumentClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
        const result = await next(args);
        const output = result.output as ReadOutput;
        this.tally.calls += 1;
        this.tally.itemsRead += itemsReadBy(result.output);
        if (WRITES.test(context.commandName ?? '')) this.tally.consumedWcu += capacityOf(output.ConsumedCapacity);
        else this.tally.consumedRcu += capacityOf(output.ConsumedCapacity);
        return result;
      },
      { step: 'initialize', name: 'benchReadMeter', override: true },
    );
  }

  reset(): void {
    this.tally = zero();
  }

  /** The tally since the last reset, and a fresh one from now on. */
  take(): ReadTally {
    const taken = this.tally;
    this.tally = zero();
    return taken;
  }
}
