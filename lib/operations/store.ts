import { config } from '../config';
import { createStore } from '../store/dynamodb';

/**
 * The API's store: one client for the process, built at module load from the function's configuration, so warm
 * invocations reuse its connections.
 */
export const store = createStore({ tables: config.tables, region: config.region, endpoint: config.dynamodbEndpoint, ...config.dynamodb });
