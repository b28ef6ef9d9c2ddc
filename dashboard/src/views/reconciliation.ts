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
            {},
            h(
              'thead',
              {},
              h('tr', {}, ...['Kind', 'Trade', 'Order', 'Bot', 'Exchange', 'Since'].map((name) => h('th', { scope: 'col' }, name))),
            ),
            h(
              'tbody',
              {},
              ...data.differences.map((difference) =>
                h(
                  'tr',
                  { title: difference.detail },
                  h('td', {}, KIND_WORDS[difference.kind] ?? difference.kind),
                  h('td', {}, difference.tradeId ?? '—'),
                  h('td', {}, difference.orderId ?? '—'),
                  h('td', {}, difference.bot ?? '—'),
                  h('td', {}, difference.exchange ?? '—'),
                  h('td', {}, utc(difference.since)),
                ),
              ),
            ),
          )
        : [],
    );
  }
  return { element, load };
}
