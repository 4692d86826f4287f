/**
 * Admission for heavy work that shares one event loop with everything else
 * (an inline catalog matched on the fly): at most `concurrency` tasks run at
 * once, at most `maxQueued` wait, and one owner (a key) holds at most
 * `perOwner` places, running or waiting. What cannot be admitted is refused
 * at once, never queued without bound: a client sending heavy requests from
 * many addresses takes at most its share, and the rest of the work waits
 * behind at most `concurrency` tasks.
 */
export interface FairQueueOptions {
  concurrency: number;
  maxQueued: number;
  perOwner: number;
}

export class QueueRefusal extends Error {
  override name = 'QueueRefusal';
  constructor(readonly reason: 'owner' | 'full') {
    super(reason === 'owner' ? 'this owner already has its share of places' : 'the queue is full');
  }
}

interface Waiting {
  owner: string;
  start: () => void;
}

export class FairQueue {
  private running = 0;
  private readonly waiting: Waiting[] = [];
  private readonly held = new Map<string, number>();

  constructor(private readonly opts: FairQueueOptions) {}

  /** places taken now: running and waiting */
  get size(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Runs `task` when a place is free; rejects with QueueRefusal at once when
   * the owner holds its share or the queue is full.
   */
  run<T>(owner: string, task: () => Promise<T> | T): Promise<T> {
    const held = this.held.get(owner) ?? 0;
    if (held >= this.opts.perOwner) return Promise.reject(new QueueRefusal('owner'));
    if (this.running >= this.opts.concurrency && this.waiting.length >= this.opts.maxQueued) {
      return Promise.reject(new QueueRefusal('full'));
    }
    this.held.set(owner, held + 1);
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++;
        Promise.resolve()
          .then(task)
          .then(resolve, reject)
          .finally(() => this.release(owner));
      };
      if (this.running < this.opts.concurrency) start();
      else this.waiting.push({ owner, start });
    });
  }

  private release(owner: string): void {
    this.running--;
    const left = (this.held.get(owner) ?? 1) - 1;
    if (left > 0) this.held.set(owner, left);
    else this.held.delete(owner);
    const next = this.waiting.shift();
    next?.start();
  }
}
