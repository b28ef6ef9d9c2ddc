/**
 * The bot's reconciliation against its exchange account (1.9, GET /api/{account}/reconciliation), on the account's
 * view: hidden for an account no exchange feed reconciles (404), else when it was checked, how many trades matched,
 * and one row per difference, as the API lists them.
 */
import { api } from '../api';
import type { components } from '../../../client';
import { fill, h, type StackColumn, stackTable } from '../dom';
import { utc } from '../format';

const KIND_WORDS: Record<string, string> = {
  missing_on_exchange: 'Not on the exchange',
  missing_in_bot: 'Not in the bot',
  amount: 'Amount',
  fee: 'Fee',
  balance: 'Balance',
};

const COLUMNS: StackColumn<components['schemas']['ReconciliationDifference']>[] = [
  ['Kind', 'key', (difference) => KIND_WORDS[difference.kind] ?? difference.kind],
  ['Trade', null, (difference) => difference.tradeId ?? '—'],
  ['Order', null, (difference) => difference.orderId ?? '—'],
  ['Bot', null, (difference) => difference.bot ?? '—'],
  ['Exchange', null, (difference) => difference.exchange ?? '—'],
  ['Since', null, (difference) => utc(difference.since)],
];

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
    // On a phone each difference is a block of labelled cells (style.css, `stack`): nothing scrolls sideways.
    fill(
      rows,
      data.differences.length ? stackTable({}, null, COLUMNS, data.differences, (difference) => ({ title: difference.detail })) : [],
    );
  }
  return { element, load };
}
