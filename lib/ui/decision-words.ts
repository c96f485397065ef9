/** How a call was decided, in the user's words: the tool card's line and the activity log's column. */
import type { CallDecision } from '../contracts/permissions';
import { t, type MessageKey } from '../i18n';

/** Who let the call run or stopped it: the user's click, a timeout, a stop, or which rule. */
export function decidedBy(decision: CallDecision): string {
  const host = decision.site?.replace(/^[a-z]+:\/\//, '') ?? '';
  if (decision.by === 'user') {
    return t(decision.choice === 'deny' ? 'decision_user_deny' : decision.choice === 'always' ? 'decision_user_always' : 'decision_user_once', host);
  }
  if (decision.by === 'timeout') return t('decision_timeout');
  if (decision.by === 'stopped') return t('decision_stopped');
  return t(`decision_rule_${decision.rule ?? 'default'}` as MessageKey, host);
}
