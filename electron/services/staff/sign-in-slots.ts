/**
 * Sign-in attempts in flight, per name typed, in this process (sign-in-throttle.ts): how many are
 * having their password hashed now, and the attempts waiting for one of them to end. The throttle
 * lets no more attempts be in flight than the name's failures left before its lockout, so that
 * guesses sent at once cannot get past the count; an attempt beyond that waits here (the right
 * password sent by many tabs at once signs in, one after the other), and is refused as busy when
 * too many already wait or it waited too long: refused, not counted as a failure.
 */

export interface SlotOptions {
  /** Attempts that may wait for a name at once; beyond, refused at once (32). */
  maxWaiting: number
  /** How long an attempt waits at most (15 s). */
  waitMs: number
  /** An attempt in flight longer than this is taken for one that never ended (an exception between begin and its outcome): 60 s. */
  staleMs: number
}

export const SLOT_DEFAULTS: SlotOptions = { maxWaiting: 32, waitMs: 15_000, staleMs: 60_000 }

/** Why an attempt could not wait: too many waiting already, or waited too long. */
export class SlotBusy extends Error {}

/** Names compared as the throttle's table compares them (without case). */
const keyOf = (name: string) => name.toLowerCase()

export class SignInSlots {
  /** Start times (performance.now) of the attempts in flight, per name. */
  private readonly held = new Map<string, number[]>()
  private readonly waiting = new Map<string, Set<() => void>>()

  constructor(private readonly o: SlotOptions = SLOT_DEFAULTS) {}

  /** Attempts in flight for the name now (those in flight too long forgotten). */
  inFlight(name: string): number {
    const key = keyOf(name)
    const list = this.held.get(key)
    if (!list) return 0
    const live = list.filter((t) => performance.now() - t < this.o.staleMs)
    if (live.length === 0) this.held.delete(key)
    else this.held.set(key, live)
    return live.length
  }

  take(name: string): void {
    const key = keyOf(name)
    this.held.set(key, [...(this.held.get(key) ?? []), performance.now()])
  }

  /** One attempt of the name has ended: every attempt waiting for it tries again. */
  release(name: string): void {
    const key = keyOf(name)
    const list = this.held.get(key)
    if (list) {
      list.shift()
      if (list.length === 0) this.held.delete(key)
    }
    for (const wake of [...(this.waiting.get(key) ?? [])]) wake()
  }

  /** Resolves at the next end of an attempt of the name; rejects (SlotBusy) at once when too many wait, or once `until` (performance.now) has passed. */
  wait(name: string, until: number): Promise<void> {
    const key = keyOf(name)
    const set = this.waiting.get(key) ?? new Set<() => void>()
    if (set.size >= this.o.maxWaiting) return Promise.reject(new SlotBusy('too many attempts wait'))
    this.waiting.set(key, set)
    return new Promise<void>((resolve, reject) => {
      const done = (ok: boolean) => {
        clearTimeout(timer)
        set.delete(wake)
        if (set.size === 0 && this.waiting.get(key) === set) this.waiting.delete(key)
        if (ok) resolve()
        else reject(new SlotBusy('waited too long'))
      }
      const wake = () => done(true)
      const timer = setTimeout(() => done(false), Math.max(0, until - performance.now()))
      set.add(wake)
    })
  }

  get waitMs(): number {
    return this.o.waitMs
  }
}
