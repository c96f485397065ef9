import { mount } from 'svelte';
import { uiLocale } from '../../lib/i18n';
import '../../assets/theme.css';
import './popup.css';
import Chat from '../../lib/ui/chat/Chat.svelte';
import { createExtensionClient } from '../../lib/ui/extension-client';

document.documentElement.lang = uiLocale();

declare global {
  interface Window {
    /** Read by the e2e suite: ms from popup open to the conversation on screen. */
    __pagewrightShownMs?: number;
  }
}

mount(Chat, {
  target: document.getElementById('app')!,
  props: { client: createExtensionClient(), onshown: (ms: number) => (window.__pagewrightShownMs = ms) },
});
