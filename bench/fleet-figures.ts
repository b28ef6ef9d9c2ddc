/**
 * What the fleet phase's parent (fleet.ts) and its workers (fleet-worker.ts) exchange: the requests, the polls as
 * measured, and the figures made of them. A module of its own, as the worker's module runs the worker when loaded.
 */
import { percentile, round } from './stats';

export const FLEET_OPERATIONS = ['accounts', 'all-status', 'all-balance', 'all-comparison'] as const;
export type FleetOperation = (typeof FLEET_OPERATIONS)[number];

export type FleetRequest =
  | { type: 'warm' }
  | { type: 'unchanged'; operation: FleetOperation; samples: number }
  | { type: 'rest'; samples: number; changedAccounts: string[] }
  | { type: 'metrics'; samples: number };

/** What one heartbeat cost the writer, as DynamoDB Local reports it: write units, and read units of its reads. */
export interface PollFigures {
  samples: number;
  status: number;
  p50Ms: number;
  p90Ms: number;
  itemsRead: number;
  rcu: number;
}

/** Polls as measured, reduced to what figures need: they cross the process boundary (interleaved rounds). */
export interface PollRuns {
  ms: number[];
  statuses: number[];
  itemsRead: number[];
  rcu: number[];
}

export function figures(runs: PollRuns): PollFigures {
  const times = [...runs.ms].sort((a, b) => a - b);
  const statuses = new Set(runs.statuses);
  if (statuses.size !== 1) throw new Error(`polls answered ${[...statuses].join(' and ')}`);
  return {
    samples: runs.ms.length,
    status: runs.statuses[0],
    p50Ms: round(percentile(times, 50), 2),
    p90Ms: round(percentile(times, 90), 2),
    // The largest, so one slow replica read does not hide in an average.
    itemsRead: Math.max(...runs.itemsRead),
    rcu: Math.max(...runs.rcu),
  };
}
