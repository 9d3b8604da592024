/** The source of time for everything that counts windows or ages: injected, so tests can move it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to, for tests. */
export class FakeClock implements Clock {
  #now: number;
  constructor(start: number | string) {
    this.#now = typeof start === 'number' ? start : Date.parse(start);
  }
  now(): number {
    return this.#now;
  }
  advance(ms: number): void {
    this.#now += ms;
  }
  set(at: number | string): void {
    this.#now = typeof at === 'number' ? at : Date.parse(at);
  }
}
