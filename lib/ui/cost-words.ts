/**
 * Dollars as the chat shows them: a few significant digits for the cents a run usually costs,
 * "<$0.01" below a cent rather than a string of zeros.
 */
export function formatCost(dollars: number, locale?: string): string {
  if (dollars > 0 && dollars < 0.01) return `<${usd(locale, 2).format(0.01)}`;
  return usd(locale, dollars < 1 ? 3 : 2).format(dollars);
}

const usd = (locale: string | undefined, digits: number) =>
  new Intl.NumberFormat(locale ?? 'en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: digits });
