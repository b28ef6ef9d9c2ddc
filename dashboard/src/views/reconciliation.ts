/**
 * The bot's reconciliation against its exchange account (1.9, GET /api/{account}/reconciliation), on the account's
 * view: hidden for an account no exchange feed reconciles (404), else when it was checked, how many trades matched,
 * and one row per difference, as the API lists them.
 */
import { api } from '../api';
import { fill, h } from '../dom';
import { utc } from '../format';

const KIND_WORDS: Record<string, string> = {
  missing_on_exchange: 'Not on the exchange',
  missing_in_bot: 'Not in the bot',
  amount: 'Amount',
  fee: 'Fee',
  balance: 'Balance',
};

const COLUMNS = ['Kind', 'Trade', 'Order', 'Bot', 'Exchange', 'Since'];

export function reconciliationPanel(account: string): { element: HTMLElement; load: () => Promise<void> } {
  const summary = h('p', { class: 'note' });
  const rows = h('div', { class: 'table-wrap' });
  const element = h(
    'section',
    { 'aria-labelledby': 'reconciliation-title', 'data-testid': 'reconciliation', hidden: '' },
    h('h3', { id: 'reconciliation-title' }, 'Reconciliation with the exchange'),
    summary,
    rows,
  );
  async function load() {
    const { data, response } = await api().GET('/api/{account}/reconciliation', { params: { path: { account } } });
    element.hidden = !data;
    if (!data) {
      if (response.status !== 404) fill(summary, `Reconciliation not read (${response.status}).`);
      return;
    }
    fill(
      summary,
      `Checked ${utc(data.checkedAt, { zone: true })} against ${data.exchangeAccountId}: ${data.matched} trades matched` +
        (data.unchecked ? `, ${data.unchecked} name no order` : '') +
        `, ${data.differenceCount} ${data.differenceCount === 1 ? 'difference' : 'differences'}.`,
    );
    fill(
      rows,
      data.differences.length
        ? h(
            'table',
            // On a phone each difference is a block of labelled cells (style.css, `stack`): nothing scrolls sideways.
            { class: 'stack' },
            h('thead', {}, h('tr', {}, ...COLUMNS.map((name) => h('th', { scope: 'col' }, name)))),
            h(
              'tbody',
              {},
              ...data.differences.map((difference) =>
                h(
                  'tr',
                  { title: difference.detail },
                  ...[
                    KIND_WORDS[difference.kind] ?? difference.kind,
                    difference.tradeId ?? '—',
                    difference.orderId ?? '—',
                    difference.bot ?? '—',
                    difference.exchange ?? '—',
                    utc(difference.since),
                  ].map((text, i) => h('td', { 'data-label': COLUMNS[i], ...(i === 0 ? { class: 'key' } : {}) }, text)),
                ),
              ),
            ),
          )
        : [],
    );
  }
  return { element, load };
}
