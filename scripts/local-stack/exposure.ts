/**
 * Who may reach `npm start`'s API: this machine alone (the default), or, when the operator opts in, other machines
 * through a TLS reverse proxy (docs/operations.md, "Your own fleet on one machine"). Opting in takes two settings
 * and API keys: LISTEN, the address the API port listens on, and ALLOWED_HOSTS, the Host names it answers beside
 * the loopback ones (the gateway refuses any other Host, against DNS rebinding). Pure: unit-tested.
 */
import { isIP } from 'node:net';

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/**
 * The exposure LISTEN, ALLOWED_HOSTS and AUTH ask for (`opened`: whether other machines may reach the API, then keys
 * are required); throws a sentence naming the variable at fault.
 */
export function exposureOf(env: NodeJS.ProcessEnv) {
  const listenAddress = env.LISTEN?.trim() || '127.0.0.1';
  if (!isIP(listenAddress))
    throw new Error(`LISTEN must be an IP address to listen on (127.0.0.1, 0.0.0.0, a LAN address), got "${env.LISTEN}"`);
  const allowedHosts = (env.ALLOWED_HOSTS ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of allowedHosts)
    if (!HOST_NAME.test(name) && !isIP(name))
      throw new Error(`ALLOWED_HOSTS takes host names without port or scheme (bots.example.com), got "${name}"`);
  const loopback = listenAddress === '::1' || listenAddress.startsWith('127.');
  const opened = !loopback || allowedHosts.length > 0;
  if (opened && env.AUTH !== 'on')
    throw new Error(
      `${!loopback ? `LISTEN=${listenAddress}` : 'ALLOWED_HOSTS'} lets other machines reach the API: that needs API keys, AUTH=on (docs/operations.md)`,
    );
  return { listenAddress, allowedHosts, opened };
}
