import { config } from './config';
import { createStore, itemsReadBy } from '@trading-bot-api/core/store/dynamodb';
import { countItemsRead } from './telemetry';

/**
 * The API's store: one client for the process, built at module load from the function's configuration, so warm
 * invocations reuse its connections. Every call's items read are counted for the request's access line.
 */
export const store = createStore({ tables: config.tables, region: config.region, endpoint: config.dynamodbEndpoint, ...config.dynamodb });

store.client.middlewareStack.add(
  (next) => async (args) => {
    const result = await next(args);
    countItemsRead(itemsReadBy(result.output));
    return result;
  },
  { step: 'initialize', name: 'countItemsRead' },
);
