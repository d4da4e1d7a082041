// Counting semaphore that caps in-flight LLM requests. Chat and embeddings share one instance so
// `maxConcurrency` is the real number of open requests against the endpoint.

export interface Semaphore {
  /** Resolves with an idempotent release function once a slot is free (FIFO order). */
  acquire(): Promise<() => void>;
  readonly inFlight: number;
  readonly waiting: number;
}

export function createSemaphore(max: number): Semaphore {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`maxConcurrency must be an integer >= 1, got ${max}`);
  let active = 0;
  const queue: Array<() => void> = [];

  const makeRelease = (): (() => void) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = queue.shift();
      // Hand the slot straight to the next waiter so a late arrival cannot jump the queue.
      if (next) next();
      else active--;
    };
  };

  return {
    acquire() {
      if (active < max) {
        active++;
        return Promise.resolve(makeRelease());
      }
      return new Promise((resolve) => queue.push(() => resolve(makeRelease())));
    },
    get inFlight() { return active; },
    get waiting() { return queue.length; },
  };
}
