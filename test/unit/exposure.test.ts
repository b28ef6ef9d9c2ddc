/** Who may reach npm start's API (scripts/local-stack/exposure.ts) and the Host names its gateway answers. */
import { exposureOf } from '../../scripts/local-stack/exposure';
import { isAllowedHost } from '../../scripts/local-stack/gateway/http-server';

it('is this machine alone unless the operator opts in', () => {
  expect(exposureOf({})).toEqual({ listenAddress: '127.0.0.1', allowedHosts: [], opened: false });
  expect(exposureOf({ LISTEN: '::1' })).toMatchObject({ opened: false });
});

it('opens to other machines only with API keys', () => {
  expect(exposureOf({ ALLOWED_HOSTS: 'bots.example.com, Desk.Example.com', AUTH: 'on' })).toEqual({
    listenAddress: '127.0.0.1',
    allowedHosts: ['bots.example.com', 'Desk.Example.com'],
    opened: true,
  });
  expect(exposureOf({ LISTEN: '0.0.0.0', ALLOWED_HOSTS: '192.168.1.20', AUTH: 'on' })).toMatchObject({ opened: true });
  expect(() => exposureOf({ LISTEN: '0.0.0.0' })).toThrow('LISTEN=0.0.0.0 lets other machines reach the API: that needs API keys, AUTH=on');
  expect(() => exposureOf({ ALLOWED_HOSTS: 'bots.example.com' })).toThrow('ALLOWED_HOSTS lets other machines reach the API');
});

it('names the variable at fault', () => {
  expect(() => exposureOf({ LISTEN: 'example.com', AUTH: 'on' })).toThrow('LISTEN must be an IP address');
  expect(() => exposureOf({ ALLOWED_HOSTS: 'https://bots.example.com', AUTH: 'on' })).toThrow('ALLOWED_HOSTS takes host names');
  expect(() => exposureOf({ ALLOWED_HOSTS: 'bots.example.com:443', AUTH: 'on' })).toThrow('ALLOWED_HOSTS takes host names');
});

it('answers a Host that is loopback or allowed, with any port and in any case, and no other', () => {
  expect(isAllowedHost('localhost:3000')).toBe(true);
  expect(isAllowedHost('bots.example.com')).toBe(false);
  expect(isAllowedHost('BOTS.example.com:443', ['bots.example.com'])).toBe(true);
  expect(isAllowedHost('bots.example.com.evil.net', ['bots.example.com'])).toBe(false);
  expect(isAllowedHost(undefined, ['bots.example.com'])).toBe(false);
});
