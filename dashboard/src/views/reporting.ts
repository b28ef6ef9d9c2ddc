/**
 * The fleet's total in the stage's reporting currency (1.9, `reporting` on GET /api/all/balance), beside the totals
 * per currency, which stay exact and unconverted: the total, then each account's rate and when it was read, and the
 * accounts no price converts. Empty when the stage names no reporting currency.
 */
import type { components } from '../../../client';
import { fill, h } from '../dom';
import { money, utc } from '../format';

export function renderReporting(target: HTMLElement, reporting: components['schemas']['AllBalances']['reporting']): void {
  if (!reporting) {
    fill(target);
    return;
  }
  const valued = reporting.accounts.flatMap((account) => ('nav' in account ? [account] : []));
  const unvalued = reporting.accounts.flatMap((account) => ('unvalued' in account ? [account] : []));
  fill(
    target,
    h('strong', {}, `All accounts in ${reporting.currency}: `, money(reporting.total, reporting.currency)),
    ' (each NAV at an exchange’s last price; ',
    valued
      .map(
        (account) =>
          `${account.accountId} at ${account.rate}${account.route.length ? ` via ${account.route.map((hop) => hop.source).join(', ')}` : ''}` +
          (account.asOf ? `, ${utc(account.asOf)}` : ''),
      )
      .join('; '),
    ')',
    unvalued.length ? `. Not valued: ${unvalued.map((account) => `${account.accountId} (${account.reason})`).join('; ')}.` : '',
  );
}
