import { defineConfig } from 'wxt';

// Firefox ships as MV2: a persistent background page is never suspended mid-run, has a DOM
// (DOMParser, blob URLs) without an offscreen document, and host permissions are granted at
// install instead of being opt-in per site as in Firefox MV3.
export default defineConfig({
  modules: ['@wxt-dev/module-svelte'],
  imports: false,
  // `npm run dev` opens Debian's browsers; WXT_HEADLESS=1 only builds and watches
  // (.output/chrome-mv3-dev), for machines without a display.
  webExt: {
    disabled: process.env.WXT_HEADLESS === '1',
    binaries: { chrome: '/usr/bin/chromium', firefox: '/usr/bin/firefox-esr' },
    chromiumArgs: ['--no-first-run', '--disable-background-networking', '--disable-sync'],
  },
  manifest: ({ browser }) => ({
    name: '__MSG_extName__',
    description: '__MSG_extDescription__',
    default_locale: 'en',
    permissions: ['storage', 'unlimitedStorage', 'tabs'],
    host_permissions: ['<all_urls>'],
    action: { default_title: '__MSG_extName__' },
    ...(browser === 'firefox'
      ? {
          browser_specific_settings: {
            gecko: {
              id: 'pagewright@pagewright.dev',
              strict_min_version: '128.0',
              // What the user types and what the agent reads from pages goes to the model
              // endpoint the user configured.
              data_collection_permissions: { required: ['websiteContent', 'personalCommunications'] },
            },
          },
        }
      : {}),
  }),
});
