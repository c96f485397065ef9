/**
 * The extension's own requests, folded from webRequest events into redirect chains for the
 * fetches being watched (lib/web/answer-address.ts says what is done with them). Pure: the
 * adapter (addresses.ts) feeds it the events it filtered.
 *
 * Matching events to a fetch. webRequest events carry a requestId (kept through redirects in
 * both browsers) but nothing that names the fetch() they belong to, and the URL cannot carry a
 * mark without changing what is fetched. So a watch takes every request of the extension whose
 * FIRST URL is exactly the watched one (fragment aside) and whose first event arrives while the
 * watch is open: the fetch's own request always qualifies, since the watch opens before fetch()
 * is called and events only arrive after it. Others may qualify too (a skill asking for the
 * same URL at that moment); the decision takes the union of them all, so they can cost a false
 * refusal, never a false acceptance. Two web_fetch calls of the same URL would each wait for
 * the other's request as well, so watches of one URL are opened one after the other: a second
 * waits until the first's answer was checked (its headers, not its body).
 */
import type { AnswerWatch, RequestChain, RequestHop } from '../web/answer-address';

export type RequestEvent =
  /** onBeforeRequest: a request starts, or a redirect continues it (same requestId). */
  | { type: 'request'; requestId: string; url: string }
  /** onBeforeRedirect: the hop at `url` answered with a redirect to `redirectUrl`. */
  | { type: 'redirect'; requestId: string; url: string; redirectUrl: string; ip?: string; proxied?: boolean }
  /** onResponseStarted (or onCompleted, which ends the request): the final answer's headers. */
  | { type: 'response' | 'completed'; requestId: string; url: string; ip?: string; proxied?: boolean }
  /** onErrorOccurred. */
  | { type: 'error'; requestId: string; url: string; ip?: string; proxied?: boolean };

interface Chain extends RequestChain {
  requestId: string;
  watches: Set<Watch>;
}

interface Watch {
  url: string;
  chains: Chain[];
  /** Called whenever one of its chains changes. */
  changed(): void;
}

const MAX_PASSING = 1000;

const withoutFragment = (url: string) => {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
};

export class RequestLog {
  /** Requests some watch holds, by requestId, until they end or no watch holds them. */
  private readonly chains = new Map<string, Chain>();
  private readonly watches = new Set<Watch>();
  /** Per URL, the end of the last watch opened on it (watches of one URL run one at a time). */
  private readonly queues = new Map<string, Promise<void>>();
  /**
   * Requests no watch took, while they last: when one is redirected into a watched URL, its
   * next onBeforeRequest must read as the redirect it is, not as a new request of that URL.
   */
  private readonly passing = new Set<string>();

  /** Opens a watch on `url` once no other watch of it is open. */
  async watch(url: string): Promise<AnswerWatch> {
    const key = withoutFragment(url);
    const before = this.queues.get(key) ?? Promise.resolve();
    let release!: () => void;
    const done = new Promise<void>((r) => (release = r));
    const tail = before.then(() => done);
    this.queues.set(key, tail);
    await before;

    let wake = () => {};
    const watch: Watch = { url: key, chains: [], changed: () => wake() };
    this.watches.add(watch);
    let stopped = false;
    return {
      settled: (graceMs, signal) =>
        new Promise((resolve) => {
          const finish = () => {
            clearTimeout(timer);
            signal.removeEventListener('abort', finish);
            wake = () => {};
            resolve(watch.chains.map(({ state, hops }) => ({ state, hops: hops.map((h) => ({ ...h })) })));
          };
          const timer = setTimeout(finish, graceMs);
          signal.addEventListener('abort', finish);
          wake = () => {
            if (watch.chains.length && watch.chains.every((c) => c.state !== 'pending')) finish();
          };
          wake();
        }),
      stop: () => {
        if (stopped) return;
        stopped = true;
        this.watches.delete(watch);
        for (const chain of watch.chains) {
          chain.watches.delete(watch);
          if (!chain.watches.size) this.forget(chain);
        }
        release();
        if (this.queues.get(key) === tail) this.queues.delete(key);
      },
    };
  }

  record(event: RequestEvent): void {
    const chain = this.chains.get(event.requestId);
    if (event.type === 'request') {
      if (chain) {
        // The redirect event already added the hop this continues.
        if (chain.hops.at(-1)?.url !== event.url) chain.hops.push({ url: event.url });
        return;
      }
      if (this.passing.has(event.requestId)) return;
      const url = withoutFragment(event.url);
      const watching = [...this.watches].filter((w) => w.url === url);
      if (!watching.length) {
        this.passing.add(event.requestId);
        // Requests that never report their end must not pile up: the oldest go first.
        if (this.passing.size > MAX_PASSING) this.passing.delete(this.passing.values().next().value!);
        return;
      }
      const started: Chain = { requestId: event.requestId, state: 'pending', hops: [{ url: event.url }], watches: new Set(watching) };
      this.chains.set(event.requestId, started);
      for (const w of watching) {
        w.chains.push(started);
        w.changed();
      }
      return;
    }
    if (!chain) {
      if (event.type === 'completed' || event.type === 'error') this.passing.delete(event.requestId);
      return;
    }
    const hop = this.hopFor(chain, event.url);
    if (event.ip && !hop.ip) hop.ip = event.ip;
    if (event.proxied) hop.proxied = true;
    if (event.type === 'redirect') {
      chain.hops.push({ url: event.redirectUrl });
    } else if (event.type === 'error') {
      if (chain.state === 'pending') chain.state = 'failed';
      this.forget(chain);
    } else {
      chain.state = 'answered';
      if (event.type === 'completed') this.forget(chain);
    }
    for (const w of chain.watches) w.changed();
  }

  /** Requests held, for tests: nothing should stay once the watches stopped and requests ended. */
  get size(): number {
    return this.chains.size + this.passing.size;
  }

  /** The chain's last hop when it is for `url`, else a new hop for it (an event the log missed). */
  private hopFor(chain: Chain, url: string): RequestHop {
    const last = chain.hops.at(-1);
    if (last && last.url === url) return last;
    const hop: RequestHop = { url };
    chain.hops.push(hop);
    return hop;
  }

  private forget(chain: Chain) {
    this.chains.delete(chain.requestId);
  }
}
