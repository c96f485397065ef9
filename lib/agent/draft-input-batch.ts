/**
 * A tool call's arguments stream in as many small input_json_delta events (a few characters
 * each: a 1 MB argument is tens of thousands of them). Forwarding each one to every attached UI
 * made the popup rebuild the growing argument text per event — quadratic, tens of seconds in
 * Firefox for 1 MB. Deltas are gathered here and handed on at most every `intervalMs`, and
 * always before any other event of the run, so the UI sees the same text in the same order.
 *
 * The gathered text is applied to the run's draft (what a newly attached UI's snapshot shows)
 * when it is handed on, not before: a UI that attaches in between gets the flushed delta as an
 * event, never twice.
 */
export class DraftInputBatch {
  private pending: { index: number; json: string } | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly flushTo: (index: number, json: string) => void,
    private readonly intervalMs = 50,
  ) {}

  add(index: number, json: string): void {
    if (this.pending && this.pending.index !== index) this.flush();
    if (this.pending) this.pending.json += json;
    else this.pending = { index, json };
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs);
  }

  /** Hands on what is gathered; called before every other event of the run. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const p = this.pending;
    this.pending = null;
    if (p) this.flushTo(p.index, p.json);
  }
}
