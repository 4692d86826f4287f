/**
 * Admission for heavy work that shares one event loop with everything else
 * (an inline catalog matched on the fly): at most `concurrency` tasks run at
 * once, at most `maxQueued` wait, and one owner (a key) holds at most
 * `perOwner` places, running or waiting. What cannot be admitted is refused
 * at once, never queued without bound: a client sending heavy requests from
 * many addresses takes at most its share, and the rest of the work waits
 * behind at most `concurrency` tasks.
 *
 * Background work (a feed pull's or a product sync's listings, a slice at a
 * time) is never refused and takes no place of the requests': it waits in a
 * lane of its own and runs only when no request's task waits, the owners
 * taking turns (one slice of each owner that has some, then the next), so one
 * merchant's 20,000-product pull delays another's request by one slice at most
 * and another's pull by one slice a turn.
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
  /** background tasks waiting, by owner; the owners in turn order (the next to run first) */
  private readonly background = new Map<string, (() => void)[]>();
  private backgroundWaiting = 0;
  /** the owner of the background task started last: another owner's turn comes first */
  private lastBackground: string | null = null;

  constructor(private readonly opts: FairQueueOptions) {}

  /** places taken now: running and waiting (background tasks waiting are not counted: `backgroundSize`) */
  get size(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** background tasks waiting, and the owners they are of */
  get backgroundSize(): { waiting: number; owners: number } {
    return { waiting: this.backgroundWaiting, owners: this.background.size };
  }

  /**
   * Runs `task` when a place is free; rejects with QueueRefusal at once when
   * the owner holds its share or the queue is full. With `background`, the
   * task is never refused: it waits until no other task does, taking its
   * owner's turn among the background tasks' owners.
   */
  run<T>(owner: string, task: () => Promise<T> | T, o: { background?: boolean } = {}): Promise<T> {
    if (o.background) {
      return new Promise<T>((resolve, reject) => {
        const start = () => {
          this.lastBackground = owner;
          this.start(task, resolve, reject, () => {});
        };
        if (this.running < this.opts.concurrency) start();
        else {
          const list = this.background.get(owner);
          if (list) list.push(start);
          else this.background.set(owner, [start]);
          this.backgroundWaiting++;
        }
      });
    }
    const held = this.held.get(owner) ?? 0;
    if (held >= this.opts.perOwner) return Promise.reject(new QueueRefusal('owner'));
    if (this.running >= this.opts.concurrency && this.waiting.length >= this.opts.maxQueued) {
      return Promise.reject(new QueueRefusal('full'));
    }
    this.held.set(owner, held + 1);
    return new Promise<T>((resolve, reject) => {
      const start = () => this.start(task, resolve, reject, () => this.unhold(owner));
      if (this.running < this.opts.concurrency) start();
      else this.waiting.push({ owner, start });
    });
  }

  private start<T>(
    task: () => Promise<T> | T,
    resolve: (v: T) => void,
    reject: (e: unknown) => void,
    done: () => void,
  ): void {
    this.running++;
    Promise.resolve()
      .then(task)
      .then(resolve, reject)
      .finally(() => {
        done();
        this.release();
      });
  }

  private unhold(owner: string): void {
    const left = (this.held.get(owner) ?? 1) - 1;
    if (left > 0) this.held.set(owner, left);
    else this.held.delete(owner);
  }

  private release(): void {
    this.running--;
    const next = this.waiting.shift()?.start ?? this.nextBackground();
    next?.();
  }

  /**
   * The first background task of the owner whose turn it is (the first in turn order that is not
   * the owner served last, unless it is the only one); that owner goes to the end of the turns.
   */
  private nextBackground(): (() => void) | undefined {
    let owner: string | undefined;
    for (const o of this.background.keys()) {
      owner ??= o;
      if (o !== this.lastBackground) {
        owner = o;
        break;
      }
    }
    if (owner === undefined) return undefined;
    const list = this.background.get(owner) as (() => void)[];
    this.background.delete(owner);
    const next = list.shift();
    if (list.length > 0) this.background.set(owner, list);
    this.backgroundWaiting--;
    return next;
  }
}
