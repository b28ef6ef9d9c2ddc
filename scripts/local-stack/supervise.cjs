// Runs one command and ties its life to the process that started this one: `node supervise.cjs CMD ARGS...`.
//
// The parent keeps our stdin open as a pipe. When the parent ends in any way (Ctrl-C, SIGHUP when its terminal
// closes, SIGKILL, a crash), the kernel closes that pipe; we see end-of-file and stop the command's whole process
// group, so neither DynamoDB Local (java) nor serverless offline can outlive `npm start` and keep its ports.
// SUPERVISE_REMOVE_AFTER names folders (separated by the path delimiter) that we remove once the command has ended:
// its working files, which a parent killed with SIGKILL cannot remove itself.
// Plain CommonJS without dependencies: it must start in milliseconds and cannot fail to load.
'use strict';

const { spawn } = require('node:child_process');
const { rmSync } = require('node:fs');
const { delimiter } = require('node:path');

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('supervise: no command');
  process.exit(2);
}
const removeAfter = (process.env.SUPERVISE_REMOVE_AFTER ?? '').split(delimiter).filter(Boolean);
const env = { ...process.env };
delete env.SUPERVISE_REMOVE_AFTER;

// Its own process group, so one signal reaches the command and everything it starts.
const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'], detached: true, env });
let stopping = false;

function stop(signal) {
  if (stopping || child.exitCode !== null || child.signalCode !== null) return;
  stopping = true;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
  // A command that ignores SIGTERM is not allowed to linger.
  setTimeout(() => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }, 5000).unref();
}

child.on('error', (error) => {
  console.error(`supervise: cannot run ${command}: ${error.message}`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  for (const folder of removeAfter) rmSync(folder, { recursive: true, force: true });
  process.exit(code ?? (signal ? 1 : 0));
});

process.stdin.on('end', () => stop('SIGTERM'));
process.stdin.on('error', () => stop('SIGTERM'));
process.stdin.resume();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop('SIGTERM'));
