/**
 * The dashboard: four views behind the URL's fragment (router.ts), each polling the API at its own pace through
 * the typed client. It says when the API does not answer, keeps polling, and clears the message once it answers;
 * when the API wants a key, it asks for one and keeps it for this browser session only.
 */
import { ApiError, type Connection, hasKey, onConnection, setKey } from './api';
import { fill, h } from './dom';
import { currentRoute } from './router';
import { accountView } from './views/account';
import { compareView } from './views/compare';
import { fleetView } from './views/fleet';
import { tradesView } from './views/trades';
import type { View } from './views/view';
import './style.css';

const main = document.getElementById('main')!;
const connection = document.getElementById('connection')!;

let view: View | undefined;
let timers: number[] = [];
let asking = false;

function close() {
  for (const timer of timers) window.clearInterval(timer);
  timers = [];
  view?.close?.();
  view = undefined;
}

async function runGuarded(run: () => Promise<void>, quiet = false) {
  try {
    await run();
  } catch (error) {
    // Unreachable and key problems are reported by the connection banner; the rest by the view itself.
    if (quiet || asking) return;
    if (error instanceof ApiError && error.status !== 401 && error.status < 500) view?.onError(error.message);
  }
}

async function open() {
  close();
  const route = currentRoute();
  for (const link of document.querySelectorAll<HTMLAnchorElement>('[data-nav]')) {
    if (link.dataset.nav === route.view || (route.view === 'account' && link.dataset.nav === 'fleet'))
      link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const opened =
    route.view === 'account'
      ? accountView(main, route.account)
      : route.view === 'trades'
        ? tradesView(main, route.query)
        : route.view === 'compare'
          ? compareView(main, route.query)
          : fleetView(main);
  view = opened;
  // First round in order (later schedules may need what earlier ones loaded), then each at its own pace.
  for (const schedule of opened.schedules) await runGuarded(schedule.run, schedule.quiet);
  if (view !== opened) return;
  timers = opened.schedules.map((schedule) => window.setInterval(() => void runGuarded(schedule.run, schedule.quiet), schedule.every));
}

/**
 * The whole command that makes a key for this page, as an operator runs it in the project's folder: against npm
 * start's database when the page is on loopback, else against the stage that serves it (the first folder of an
 * execute-api URL; a custom domain does not say which).
 */
function keyCommand(): string {
  const { hostname, href } = window.location;
  const stage = /\.execute-api\.[\w-]+\.amazonaws\.com$/.test(hostname)
    ? new URL('.', href).pathname.split('/').filter(Boolean)[0]
    : ['localhost', '127.0.0.1', '[::1]'].includes(hostname)
      ? null
      : undefined;
  const target = stage === null ? '' : `--stage ${stage ?? '<stage>'} `;
  return `npm run keys -- create ${target}--accounts '*' --label dashboard`;
}

function askForKey(detail: string) {
  if (asking) return;
  asking = true;
  close();
  const input = h('input', { id: 'api-key', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false' });
  const form = h(
    'form',
    { class: 'key-form', 'aria-labelledby': 'key-title' },
    h('h2', { id: 'key-title' }, 'API key'),
    h(
      'p',
      {},
      detail,
      ' Make one in the project’s folder with ',
      h('code', { 'data-testid': 'key-command' }, keyCommand()),
      ' (it prints the key on its last line) and paste it here. It is kept for this browser session only (sessionStorage) and sent in the x-api-key header.',
    ),
    h('p', {}, h('label', { for: 'api-key' }, 'Key'), input),
    h('p', {}, h('button', { type: 'submit' }, 'Use this key')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    setKey(input.value.trim());
    asking = false;
    showConnection('ok');
    void open();
  });
  fill(main, form);
  input.focus();
}

function showConnection(state: Connection, detail = '') {
  connection.className = `connection ${state}`;
  if (state === 'unreachable') fill(connection, `${detail} Retrying…`);
  else if (state === 'needs-key') {
    fill(connection, detail);
    askForKey(detail);
  } else if (hasKey()) {
    const forget = h('button', { type: 'button', class: 'link' }, 'Forget the key');
    forget.addEventListener('click', () => {
      setKey(null);
      showConnection('ok');
      void open();
    });
    fill(connection, forget);
  } else fill(connection);
}

onConnection(showConnection);

window.addEventListener('hashchange', () => {
  if (!asking) void open();
});
void open();
