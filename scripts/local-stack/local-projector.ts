/**
 * The fleet projector over a local stage's streams (stream-pump.ts), as the local API runs it (local-api.ts) and the
 * integration harness does (test/kit/api-harness.ts). A module of its own: the harness, loaded anew by each of some
 * forty test files, needs the projector alone, not serverless offline, the gateway and the functions' build that
 * local-api.ts loads (some 40 ms of CPU per file).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import stages from '../../resources/stages.js';
import { localStore } from './local-db';
import { type StreamPump, startStreamPump } from './stream-pump';

/**
 * The fleet projector over a local stage's streams, a round every `intervalMs` (none: drain() alone), with the stale
 * threshold the functions run with (`env` overrides the stage's); what it gives up on is appended to `failedQueue`.
 */
export function localProjector(
  endpoint: string,
  stage: string,
  options: { env?: Record<string, string>; intervalMs?: number; onError?: (error: unknown) => void; failedQueue?: string } = {},
): StreamPump {
  const store = localStore(endpoint, stage);
  const failedQueue = options.failedQueue ?? join(__dirname, '..', '..', '.data', `projector-failed-${stage}.jsonl`);
  mkdirSync(join(failedQueue, '..'), { recursive: true });
  const pump = startStreamPump({
    store,
    endpoint,
    staleAfterSeconds: stages.stageSettings(stage, { ...process.env, ...options.env }).staleAfterSeconds,
    failedQueue,
    intervalMs: options.intervalMs,
    onError: options.onError,
  });
  return {
    drain: pump.drain,
    stop: async () => {
      await pump.stop();
      store.client.destroy();
    },
  };
}
