import stages from '../../../resources/stages.js';

/**
 * How long a running bot may be silent before it is stale, where its stage says nothing else: the default stage's
 * `staleAfterSeconds` in resources/stages.js (plain JavaScript, which serverless.yml reads too), named once here for
 * the TypeScript side. A module of its own: the writer, which never judges staleness, bundles no stage settings.
 */
export const DEFAULT_STALE_AFTER_SECONDS: number = stages.DEFAULTS.staleAfterSeconds;
