/**
 * Child process of `npm run bench` that measures queries against one stage's tables (bench/query-measure.ts): the
 * functions' configuration is read from the environment at module load, so each dataset has a process of its own.
 */
import { serveParent } from './child-rpc';
import type { WorkerRequest } from './measurement';
import { closeClients, measure, prepare } from './query-measure';

serveParent(
  { ready: true },
  async (request: WorkerRequest) => {
    switch (request.type) {
      case 'prepare':
        return prepare(request.queries);
      case 'measure':
        return measure(request.id, request.reps, request.settings);
    }
  },
  async () => closeClients(),
);
