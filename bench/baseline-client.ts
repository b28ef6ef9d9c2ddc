/**
 * The baseline bundle of the bundle-size and import-time comparison: a module that only creates a DynamoDB
 * DocumentClient. What a function bundle weighs beyond this is the cost of the API's own code and middleware.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
