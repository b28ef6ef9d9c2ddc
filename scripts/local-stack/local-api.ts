/**
 * The local API as `npm start` runs it, and as the end-to-end tests and the benchmark start it: serverless offline
 * behind the local gateway, over tables in a DynamoDB Local, with the fleet projector fed from their streams
 * (stream-pump.ts). One function, so what the tests check over HTTP is what a user of `npm start` gets.
 */
import stages from '../../resources/stages.js';
import { localFunctionEnv } from './local-db';
import { type StreamPump, startStreamPump } from './stream-pump';
import { type LocalGatewayOptions, startLocalGateway } from './gateway/gateway';
import { startOffline } from './offline';

/** The gateway's options (stage, ports, auth, listen address, allowed hosts; CORS is the stage's), and the stack's. */
export interface LocalApiOptions extends Omit<LocalGatewayOptions, 'offline'> {
  /** The DynamoDB the functions use. */
  dbEndpoint: string;
  cursorSecret: string;
  /** More environment for the functions (e.g. STALE_AFTER_SECONDS). */
  env?: Record<string, string>;
  quiet?: boolean;
  /** Receives each line serverless offline prints (the functions' logs among them). */
  onLine?: (line: string) => void;
  /** Run the fleet projector over the stage's streams (default); false for tables made without streams (the bench's). */
  projector?: boolean;
}

export type LocalApi = Awaited<ReturnType<typeof startLocalApi>>;

/**
 * How often the local projector reads the streams while they carry writes; quiet, its rounds space out to IDLE_MS
 * (stream-pump.ts). A write shows in the fleet's answers within about a second at most, as a deployed one does within
 * the event source mapping's batching window (1 s).
 */
const PUMP_INTERVAL_MS = 250;

/** Starts serverless offline and the local gateway in front of it; resolves once both answer. */
export async function startLocalApi(options: LocalApiOptions) {
  const offline = await startOffline({
    ...options,
    env: {
      ...localFunctionEnv(options.stage, options.dbEndpoint, options.cursorSecret),
      AUTH_MODE: options.auth ? 'required' : 'off',
      CORS_ALLOWED_ORIGINS: stages.stageSettings(options.stage).corsOrigins.join(','),
      ...options.env,
    },
  });
  const gateway = await startLocalGateway({ ...options, offline }).catch(async (error) => {
    await offline.stop();
    throw error;
  });
  const pump: StreamPump =
    options.projector === false
      ? { drain: async () => {}, stop: async () => {} }
      : startStreamPump({
          endpoint: options.dbEndpoint,
          stage: options.stage,
          env: options.env,
          intervalMs: PUMP_INTERVAL_MS,
          // As a failed Lambda batch: said, and tried again on the next round.
          onError: (error) =>
            (options.onLine ?? console.error)(
              `fleet projector: ${error instanceof Error ? `${error.message}${error.cause ? `: ${error.cause}` : ''}` : String(error)}`,
            ),
        });
  // What was written before the API started (npm start's demo data, a test's fixture) is in the fleet's summary
  // before the first request: the answers never show a fleet half projected.
  await pump.drain().catch(async (error) => {
    await Promise.all([pump.stop(), gateway.close(), offline.stop()]);
    throw error;
  });
  return {
    url: gateway.url,
    lambdaUrl: gateway.lambdaUrl,
    offline,
    stop: async () => {
      await pump.stop();
      await gateway.close();
      await offline.stop();
    },
  };
}
