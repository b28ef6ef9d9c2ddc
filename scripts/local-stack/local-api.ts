/**
 * The local API as `npm start` runs it, and as the end-to-end tests and the benchmark start it: serverless offline
 * behind the local gateway, over tables in a DynamoDB Local. One function, so what the tests check over HTTP is
 * what a user of `npm start` gets.
 */
import stages from '../../resources/stages.js';
import { localFunctionEnv } from './local-db';
import { type LocalGateway, startLocalGateway } from './gateway/gateway';
import { type Offline, startOffline } from './offline';

export interface LocalApiOptions {
  stage: string;
  /** The DynamoDB the functions use. */
  dbEndpoint: string;
  cursorSecret: string;
  /** API and Lambda ports on 127.0.0.1 (0: any free port). */
  port: number;
  lambdaPort: number;
  /** Require API keys, as deployed stages do. */
  auth: boolean;
  /** The stage's CORS allow-list unless given. */
  corsAllowedOrigins?: string[];
  /** More environment for the functions (e.g. STALE_AFTER_SECONDS). */
  env?: Record<string, string>;
  quiet?: boolean;
  /** Receives each line serverless offline prints (the functions' logs among them). */
  onLine?: (line: string) => void;
  maxInFlight?: number;
}

export interface LocalApi {
  url: string;
  lambdaUrl: string;
  gateway: LocalGateway;
  offline: Offline;
  stop(): Promise<void>;
}

/** Starts serverless offline and the local gateway in front of it; resolves once both answer. */
export async function startLocalApi(options: LocalApiOptions): Promise<LocalApi> {
  const corsAllowedOrigins = options.corsAllowedOrigins ?? stages.stageSettings(options.stage).corsOrigins;
  const offline = await startOffline({
    stage: options.stage,
    quiet: options.quiet,
    onLine: options.onLine,
    env: {
      ...localFunctionEnv(options.stage, options.dbEndpoint, options.cursorSecret),
      AUTH_MODE: options.auth ? 'required' : 'off',
      CORS_ALLOWED_ORIGINS: corsAllowedOrigins.join(','),
      ...options.env,
    },
  });
  let gateway: LocalGateway;
  try {
    gateway = await startLocalGateway({
      stage: options.stage,
      port: options.port,
      lambdaPort: options.lambdaPort,
      offline,
      auth: options.auth,
      corsAllowedOrigins,
      maxInFlight: options.maxInFlight,
    });
  } catch (error) {
    await offline.stop();
    throw error;
  }
  return {
    url: gateway.url,
    lambdaUrl: gateway.lambdaUrl,
    gateway,
    offline,
    stop: async () => {
      await gateway.close();
      await offline.stop();
    },
  };
}
