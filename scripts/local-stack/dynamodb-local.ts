/**
 * AWS's own DynamoDB emulator (DynamoDB Local, a Java program) for `npm start`, the tests and the benchmark: the one
 * engine every local run uses, so transactions, limits and validation are DynamoDB's.
 *
 * There is no download from AWS here. DynamoDB Local's jar ships inside the npm package amplify-dynamodb-simulator
 * (folder emulator/); installing that package would drag in some 280 unrelated packages, so only its tarball is
 * fetched, once, at a pinned version whose integrity is checked, and unpacked into the git-ignored .cache/ folder.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startSupervised } from './processes';

const ROOT = join(__dirname, '..', '..');

export const DYNAMODB_LOCAL = {
  version: '1.25.1',
  /** The npm package and version whose emulator/ folder holds DynamoDB Local 1.25.1. */
  tarball: 'amplify-dynamodb-simulator@2.9.30',
  integrity: 'sha512-xTeeRLvzEfqyd5lh3bH4c0kHvSHHmmhD5ZDsHFKAQ5g2Zl6JqlFdutaQhCLHzxEp6Ry1o7TB6niIoXuQAnSewQ==',
  minimumJava: 17,
} as const;

const JAVA_INSTALL_HINT = 'Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless';

/** CORS allow-list given to DynamoDB Local: an origin under the reserved .invalid domain, which no page can have. */
const NO_WEB_ORIGIN = 'http://dynamodb-local.invalid';

/** A missing prerequisite, reported as its one-line message without a stack trace. */
export class PrerequisiteError extends Error {}

/**
 * The major version of the `java` on the PATH; throws a PrerequisiteError naming the install command when there is
 * none or it is older than DynamoDB Local needs.
 */
export function checkJava(): number {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  const found = /version "(\d+)(?:\.(\d+))?/.exec(`${probe.stderr ?? ''}${probe.stdout ?? ''}`);
  const major = found ? (found[1] === '1' ? Number(found[2]) : Number(found[1])) : undefined;
  if (probe.error || major === undefined || major < DYNAMODB_LOCAL.minimumJava) {
    const found = major === undefined || probe.error ? 'no java was found on the PATH' : `the java on the PATH is ${major}`;
    throw new PrerequisiteError(
      `Java ${DYNAMODB_LOCAL.minimumJava} or later is needed to run DynamoDB Local; ${found}. Install it (${JAVA_INSTALL_HINT}) and run again.`,
    );
  }
  return major;
}

/** SRI text (`sha512-<base64>`) of a file. */
function integrityOf(file: string): string {
  return `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed: ${result.error?.message ?? result.stderr.trim().split('\n').pop()}`);
  }
  return result.stdout;
}

/**
 * The folder holding DynamoDBLocal.jar and DynamoDBLocal_lib/, fetched and unpacked on first use. Safe when several
 * processes ask at once: each unpacks into a folder of its own and the first rename wins.
 */
export function ensureDynamoDbLocal(log: (line: string) => void = () => {}): string {
  const home = join(ROOT, '.cache', 'dynamodb-local');
  const folder = join(home, DYNAMODB_LOCAL.version);
  if (existsSync(join(folder, 'DynamoDBLocal.jar'))) return folder;
  mkdirSync(home, { recursive: true });
  const work = mkdtempSync(join(home, 'fetch-'));
  try {
    log(`Fetching DynamoDB Local ${DYNAMODB_LOCAL.version} (${DYNAMODB_LOCAL.tarball}, 57 MB, once) into .cache/ ...`);
    // npm pack reads the registry the user's npm is configured for (mirrors, proxies, cache) and saves the tarball.
    run(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['pack', DYNAMODB_LOCAL.tarball, '--pack-destination', work, '--silent'], work);
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
    if (!tarball) throw new Error('npm pack produced no tarball');
    const actual = integrityOf(join(work, tarball));
    if (actual !== DYNAMODB_LOCAL.integrity) {
      throw new Error(
        `${DYNAMODB_LOCAL.tarball} does not have the pinned integrity (expected ${DYNAMODB_LOCAL.integrity}, got ${actual}); refusing to run it`,
      );
    }
    run('tar', ['-xzf', tarball, 'package/emulator'], work);
    try {
      renameSync(join(work, 'package', 'emulator'), folder);
    } catch (error) {
      // Another process got there first with the same verified files.
      if (!existsSync(join(folder, 'DynamoDBLocal.jar'))) throw error;
    }
    return folder;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Java security policy that lets DynamoDB Local accept connections from loopback addresses only. DynamoDB Local has
 * no option to choose the address it listens on and listens on every interface; refusing every other peer at accept
 * keeps the database off the network. The Security Manager that enforces it exists up to Java 23.
 */
const LOOPBACK_ONLY_POLICY = `grant {
  permission java.io.FilePermission "<<ALL FILES>>", "read,write,delete,execute,readlink";
  permission java.lang.RuntimePermission "*";
  permission java.util.PropertyPermission "*", "read,write";
  permission java.lang.reflect.ReflectPermission "*";
  permission java.net.NetPermission "*";
  permission java.security.SecurityPermission "*";
  permission java.util.logging.LoggingPermission "control";
  permission java.lang.management.ManagementPermission "control";
  permission java.lang.management.ManagementPermission "monitor";
  permission javax.management.MBeanServerPermission "*";
  permission javax.management.MBeanPermission "*", "*";
  permission javax.management.MBeanTrustPermission "*";
  permission java.net.SocketPermission "localhost:0-", "listen,resolve";
  permission java.net.SocketPermission "127.0.0.1:1-", "accept,connect,resolve";
  permission java.net.SocketPermission "[0:0:0:0:0:0:0:1]:1-", "accept,connect,resolve";
};
`;
const LAST_JAVA_WITH_SECURITY_MANAGER = 23;

export type LocalDb = Awaited<ReturnType<typeof startDynamoDbLocal>>;

/**
 * JVM options for a database under a light load (`npm start`'s: one demo load, then a person's clicks): the JVM's quick
 * compiler only, and its simplest collector. The optimizing compiler pays for itself under a heavy, long load (the
 * tests' shared database, the bench); for npm start its compilations cost as much CPU as the demo load itself
 * (measured: the JVM's CPU through start-up and the demo load 19 s → 9 s, started in 2.2 s instead of 4 s).
 */
const LIGHT_LOAD_JVM = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/**
 * Starts DynamoDB Local on a free port of 127.0.0.1: one database for every client
 * (-sharedDb; otherwise it keeps one per access key and region), no telemetry, no CORS for any web page, in memory
 * unless `dataDir` names a folder to keep the data in. `lightLoad` tunes the JVM for a light load (LIGHT_LOAD_JVM).
 */
export async function startDynamoDbLocal(options: { dataDir?: string; lightLoad?: boolean; log?: (line: string) => void } = {}) {
  const javaMajor = checkJava();
  const folder = ensureDynamoDbLocal(options.log);
  const port = await freePort();
  const jvm: string[] = options.lightLoad ? [...LIGHT_LOAD_JVM] : [];
  if (javaMajor <= LAST_JAVA_WITH_SECURITY_MANAGER) {
    const policy = join(folder, '..', 'loopback-only.policy');
    writeFileSync(policy, LOOPBACK_ONLY_POLICY);
    // `==` makes this policy the only one, instead of adding to the JDK's default policy.
    jvm.push('-Djava.security.manager', `-Djava.security.policy==${policy}`);
  }
  const storage = options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory'];
  const args = [
    ...jvm,
    `-Djava.library.path=${join(folder, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(folder, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-sharedDb',
    '-disableTelemetry',
    '-cors',
    NO_WEB_ORIGIN,
    ...storage,
  ];
  const endpoint = `http://127.0.0.1:${port}`;
  const process = await startSupervised('java', args, {
    quiet: true,
    // Its working folder is the cache: it writes a metadata file there.
    cwd: folder,
    ready: async () => (await fetch(endpoint, { signal: AbortSignal.timeout(1000) })).status > 0,
    timeoutMs: 60_000,
    describe: `DynamoDB Local did not start on port ${port}`,
  });
  return { endpoint, process, close: () => process.stop() };
}
