/**
 * A background pass run now and then every interval, never two at once: a pass still running when
 * the timer fires is left to finish, and the tick skipped. A failed pass is logged and the next
 * tick tries again. The timer does not keep the process alive.
 */
export class RepeatedPass {
  readonly #pass: () => Promise<unknown>;
  readonly #failed: (error: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;

  constructor(pass: () => Promise<unknown>, failed: (error: unknown) => void) {
    this.#pass = pass;
    this.#failed = failed;
  }

  start(intervalMs: number): void {
    const tick = () => {
      if (this.#running !== undefined) return;
      this.#running = this.#pass()
        .catch(this.#failed)
        .finally(() => {
          this.#running = undefined;
        });
    };
    tick();
    this.#timer = setInterval(tick, intervalMs);
    this.#timer.unref();
  }

  /** Stops the timer and waits for a pass under way. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
