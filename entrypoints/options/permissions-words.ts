/**
 * The Permissions section's words for the trust layer's facts: risk classes, rule levels, how a
 * call was decided, and dates as the user reads them.
 */
import type { CallDecision, RuleLevel } from '../../lib/contracts/permissions';
import type { RiskClass } from '../../lib/contracts/tools';
import { t, uiLocale, type MessageKey } from '../../lib/i18n';

export const riskLabel = (risk: RiskClass | undefined): string => t(risk ? (`perm_risk_${risk}` as MessageKey) : 'perm_risk_unknown');

export const levelLabel = (level: RuleLevel): string => t(`perm_level_${level}` as MessageKey);

export const outcomeLabel = (outcome: CallDecision['outcome']): string => t(`perm_outcome_${outcome}` as MessageKey);

export { decidedBy } from '../../lib/ui/decision-words';

/** Enough of a conversation id to tell conversations apart in a table (the whole id is its title). */
export const shortId = (id: string) => (id.length > 8 ? id.slice(0, 8) : id);

export const absoluteTime = (at: number, locale = uiLocale()) =>
  new Date(at).toLocaleString(locale, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });

/** The same, as a date and a time apart (a narrow table column shows them on two lines). */
export const dateAndTime = (at: number, locale = uiLocale()) => {
  const d = new Date(at);
  return {
    date: d.toLocaleDateString(locale, { year: 'numeric', month: 'short', day: 'numeric' }),
    time: d.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit', second: '2-digit' }),
  };
};

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['week', 7 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];

/** "3 hours ago", in the UI's language. */
export function relativeTime(at: number, now = Date.now(), locale = uiLocale()): string {
  const seconds = (at - now) / 1000;
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return format.format(Math.round(seconds), 'second');
}
