/**
 * Drawing the user's eye to a question that waits: the toolbar badge (Chrome's `action`,
 * Firefox MV2's `browserAction`) and a system notification; clicking it opens the popup where
 * the browser allows that.
 */
import { browser } from 'wxt/browser';
import type { Attention } from '../contracts/ports';
import type { PendingQuestion } from '../contracts/questions';
import { t } from '../i18n';

type ActionApi = {
  setBadgeText(details: { text: string }): Promise<void>;
  setBadgeBackgroundColor(details: { color: string }): Promise<void>;
  openPopup?: () => Promise<void>;
};

const NOTIFICATION_PREFIX = 'pagewright-question:';

export function createAttention(): Attention {
  const api = browser as unknown as { action?: ActionApi; browserAction?: ActionApi };
  const action = api.action ?? api.browserAction;
  const ignore = () => {};
  browser.notifications?.onClicked.addListener((id: string) => {
    if (!id.startsWith(NOTIFICATION_PREFIX)) return;
    // Chrome needs a focused window and Firefox a user gesture; a click on our notification is one.
    void action?.openPopup?.().catch(ignore);
    void browser.notifications.clear(id).catch(ignore);
  });
  return {
    waiting(count) {
      void action?.setBadgeText({ text: count ? '?' : '' }).catch(ignore);
      if (count) void action?.setBadgeBackgroundColor({ color: '#d97706' }).catch(ignore);
    },
    notify(question: PendingQuestion) {
      void browser.notifications
        ?.create(NOTIFICATION_PREFIX + question.id, {
          type: 'basic',
          iconUrl: browser.runtime.getURL('/icon/128.png'),
          title: question.signIn ? t('sign_in_card_heading') : question.approval ? t('notification_approval_title') : question.elicitation ? t('notification_elicitation_title') : t('notification_question_title'),
          message: question.signIn ? t('sign_in_card_title', question.signIn.name) : question.question.slice(0, 300),
        })
        .catch(ignore);
    },
    settled(questionId) {
      void browser.notifications?.clear(NOTIFICATION_PREFIX + questionId).catch(ignore);
    },
  };
}
