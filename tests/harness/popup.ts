import type { Page } from 'puppeteer-core';
import type { ExtensionBrowser } from './browsers';

/** The popup as a test sees it: what a user can click and read. */
export class PopupPage {
  private constructor(readonly page: Page) {}

  /** The chat in a page already open (the side panel's page in its own window). */
  static async on(page: Page): Promise<PopupPage> {
    await page.waitForSelector('textarea[aria-label="Message"]');
    return new PopupPage(page);
  }

  static async open(ext: ExtensionBrowser): Promise<PopupPage> {
    const page = await ext.open('popup.html');
    const popup = new PopupPage(page);
    await page.waitForSelector('textarea[aria-label="Message"]');
    return popup;
  }

  async newChat() {
    await this.page.click('button[aria-label="New chat"]');
    await this.page.waitForFunction(() => !document.querySelector('[data-role="user"]'), { polling: 100 });
  }

  async send(text: string) {
    await this.page.type('textarea[aria-label="Message"]', text);
    await this.page.keyboard.press('Enter');
  }

  /** Waits until some assistant message (committed or streaming) contains `text`. */
  async waitForAssistantText(text: string, timeout = 15_000) {
    try {
      await this.page.waitForFunction(
        (t) => [...document.querySelectorAll('[data-role^="assistant"]')].some((el) => el.textContent?.includes(t)),
        // Interval polling: an agent that opens tabs hides this one, and hidden tabs get no animation frames.
        { timeout, polling: 100 },
        text,
      );
    } catch (e) {
      const shown = await this.page.evaluate(() => document.querySelector('[role="log"]')?.textContent ?? '(no log)').catch(() => '(closed)');
      throw new Error(`No assistant text "${text}" within ${timeout} ms. The conversation shows: ${shown}`, { cause: e });
    }
  }

  async waitFor(selector: string, timeout = 15_000) {
    return this.page.waitForSelector(selector, { timeout });
  }

  async waitForGone(selector: string, timeout = 15_000) {
    await this.page.waitForFunction((s) => !document.querySelector(s), { timeout, polling: 100 }, selector);
  }

  async text(selector: string): Promise<string> {
    return this.page.$eval(selector, (el) => el.textContent ?? '');
  }

  async count(selector: string): Promise<number> {
    return this.page.$$eval(selector, (els) => els.length);
  }

  async idle() {
    await this.waitFor('button[aria-label="Send"]');
  }

  /** The result text of the n-th card of a tool (0-based), once it has one. */
  async toolResult(tool: string, n = 0, timeout = 20_000): Promise<{ status: string; text: string }> {
    await this.page.waitForFunction(
      (name, i) => {
        const card = document.querySelectorAll(`details[data-tool="${name}"]`)[i];
        return card && ['done', 'error'].includes(card.getAttribute('data-status') ?? '');
      },
      { timeout, polling: 100 },
      tool,
      n,
    );
    return this.page.evaluate(
      (name, i) => {
        const card = document.querySelectorAll(`details[data-tool="${name}"]`)[i]!;
        return { status: card.getAttribute('data-status')!, text: card.querySelector('.result')?.textContent ?? '' };
      },
      tool,
      n,
    );
  }

  /** The approval card that waits (the oldest), once one shows: what it asks and why. */
  async approval(timeout = 20_000): Promise<{ id: string; reason: string; tool: string; text: string; url: string; preview: string; choices: string[] }> {
    // Interval polling and DOM clicks: the agent's open_tab puts this tab in the background,
    // where headless Chromium renders no frames and puppeteer's mouse clicks never land.
    await this.page.waitForFunction(() => !!document.querySelector('[data-approval]'), { timeout, polling: 100 });
    return this.page.$eval('[data-approval]', (el) => ({
      id: el.getAttribute('data-approval')!,
      reason: el.getAttribute('data-reason')!,
      tool: el.getAttribute('data-tool')!,
      text: el.querySelector('.text')?.textContent ?? '',
      url: el.querySelector('[data-approval-url]')?.textContent ?? '',
      preview: el.querySelector('[data-approval-preview]')?.textContent ?? '',
      choices: [...el.querySelectorAll('button[data-choice]')].map((b) => b.getAttribute('data-choice')!),
    }));
  }

  /** Clicks a button of the approval card `id` and waits for the card to go. */
  async answerApproval(id: string, choice: 'once' | 'always' | 'deny') {
    await this.page.$eval(`[data-approval="${id}"] button[data-choice="${choice}"]`, (b) => (b as HTMLButtonElement).click());
    await this.waitForGone(`[data-approval="${id}"]`);
  }

  /** Stops the run this popup shows, if one is going (a DOM click: the tab may be in the background). */
  async stopIfRunning() {
    if (this.page.isClosed()) return;
    await this.page.$eval('button[aria-label="Stop"]', (b) => (b as HTMLButtonElement).click()).catch(() => {});
  }

  async close() {
    await this.page.close();
  }
}

/**
 * Writes settings straight into storage.local from an extension page: `patch` over what is
 * stored, or with `replace` over the defaults alone (what an earlier test stored is dropped).
 */
export async function setSettings(page: Page, patch: Record<string, unknown>, { replace = false } = {}) {
  await page.evaluate(
    async (p, replace) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      const got = replace ? {} : await api.storage.local.get('settings');
      await api.storage.local.set({
        settings: { version: 4, apiKey: '', baseUrl: 'https://api.anthropic.com', model: 'fake-model', maxTokens: 8192, roundCap: 50, summaryModel: '', scriptTimeoutSec: 30, ...got.settings, ...p },
      });
    },
    patch,
    replace,
  );
}

/**
 * What the e2e suites of the tools run with unless they test the policy: "Act without asking",
 * and the local test servers (all on 127.0.0.1, any port, and the *.pagewright.test names that
 * resolve to it) allowed for reading, acting and sending.
 * Irreversible actions and sends elsewhere after untrusted text still ask.
 */
export const TEST_PERMISSIONS = {
  version: 1,
  mode: 'act',
  sites: [
    { site: 'http://127.0.0.1', subdomains: false, read: 'allow', act: 'allow', send: 'allow', createdAt: 1 },
    { site: 'http://pagewright.test', subdomains: true, read: 'allow', act: 'allow', send: 'allow', createdAt: 1 },
  ],
  tools: {},
  localFiles: false,
};

/** Replaces the stored permissions (as the management page would save them), from an extension page. */
export async function setPermissions(page: Page, permissions: unknown) {
  await page.evaluate(async (p) => {
    const api = (globalThis as any).browser ?? (globalThis as any).chrome;
    await api.storage.local.set({ permissions: p });
  }, permissions as any);
}

export interface SeedSkill {
  name: string;
  description?: string;
  skill_type: string;
  config: Record<string, unknown> | string;
  is_active?: boolean;
  /** Function skills run only once their code is approved: marks the config as reviewed. */
  approved?: boolean;
}

/** Replaces the stored skills (as the management page would save them), from an extension page. */
export async function setSkills(page: Page, skills: SeedSkill[]) {
  const records = skills.map((s, i) => {
    const config_json = typeof s.config === 'string' ? s.config : JSON.stringify(s.config);
    return {
      id: `skill-${i}-${s.name}`,
      name: s.name,
      description: s.description ?? `The ${s.name} skill.`,
      skill_type: s.skill_type,
      config_json,
      ...(s.approved ? { approved_config_json: config_json } : {}),
      is_active: s.is_active ?? true,
      created_at: 1,
      updated_at: 1,
    };
  });
  await page.evaluate(async (skills) => {
    const api = (globalThis as any).browser ?? (globalThis as any).chrome;
    await api.storage.local.set({ skills });
  }, records);
}

/** Replaces the stored agent profiles (delegate_to_agent's targets). */
export async function setAgentProfiles(page: Page, profiles: { name: string; slug: string; system_prompt?: string; model?: string; tools?: string[]; a2a_url?: string }[]) {
  const records = profiles.map((p, i) => ({ id: `agent-${i}`, system_prompt: '', model: '', tools: [], a2a_url: '', created_at: 1, updated_at: 1, ...p }));
  await page.evaluate(async (agentProfiles) => {
    const api = (globalThis as any).browser ?? (globalThis as any).chrome;
    await api.storage.local.set({ agentProfiles });
  }, records);
}
