/**
 * The one home of the AWS SDK's Node-version notice switch. The project supports Node 20 (the README says so) while
 * Lambda runs nodejs22.x: the SDK's notice that Node 20 support is ending would be printed by every command, test and
 * process they start, and says nothing anyone here can act on.
 *
 * Imported first by the project's commands (and set up first in every test, jest.config.js), it switches the notice
 * off in this process and in those it starts (they inherit the variable); QUIET_SDK_ENV is the same setting for an
 * environment built from nothing (local-db.ts's LOCAL_AWS_ENV, a child given its own environment).
 */
export const QUIET_SDK_ENV = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' } as const;

for (const [name, value] of Object.entries(QUIET_SDK_ENV)) process.env[name] ??= value;
