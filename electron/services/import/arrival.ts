/**
 * A feed's bytes as they arrive: the browser host reads an upload into shared memory of its
 * declared length and hands the import over at once, before the body is in (README.md). Beside
 * the bytes, two Int32 words in a SharedArrayBuffer say how many bytes have arrived and whether
 * the upload was cut. The host publishes them with Atomics as chunks come; the import's threads
 * (its worker, its reader) wait with Atomics.wait for the bytes they reach, and an upload cut
 * short (the client gone, the request's time up) makes the import fail with `uploadCut`, in its
 * transaction: nothing is written.
 *
 * Bytes under way travel from the host to the import's runner (runner.ts) by identity: the
 * host registers the Buffer it dispatches (`registerArrival`), the runner looks it up (`arrivalOf`).
 */
import { AppError } from '../../contract/errors'

const WORDS = { ARRIVED: 0, STATE: 1 } as const
const STATE = { ARRIVING: 0, CUT: 1 } as const
/** Waits are this long, so that a waiter also looks at what else it watches (a cancel). */
const WAIT_MS = 250
/** An upload that brings no byte for this long is taken as cut (the host's own limit is 30 s for the whole request). */
export const STALL_MS = 60_000

export class FeedArrival {
  private readonly words: Int32Array

  /** `length`: the bytes declared (the buffer's length). */
  constructor(
    readonly memory: SharedArrayBuffer,
    readonly length: number,
  ) {
    this.words = new Int32Array(memory, 0, 2)
  }

  static create(length: number): FeedArrival {
    return new FeedArrival(new SharedArrayBuffer(8), length)
  }

  /** The bytes arrived so far (the host's side writes them before it publishes the count). */
  arrived(): number {
    return Atomics.load(this.words, WORDS.ARRIVED)
  }

  isCut(): boolean {
    return Atomics.load(this.words, WORDS.STATE) === STATE.CUT
  }

  /** The host: `bytes` have arrived in all. */
  publish(bytes: number): void {
    Atomics.store(this.words, WORDS.ARRIVED, bytes)
    Atomics.notify(this.words, WORDS.ARRIVED)
  }

  /** The host: no more bytes will come. Waiters wake and give up. */
  cut(): void {
    if (this.arrived() === this.length) return
    Atomics.store(this.words, WORDS.STATE, STATE.CUT)
    Atomics.notify(this.words, WORDS.ARRIVED)
  }

  /**
   * Waits (blocking this thread: not the host's) until at least `bytes` have arrived, and returns
   * how many have; -1 when the upload was cut first, or when `stop()` says to give up.
   */
  waitFor(bytes: number, stop: () => boolean = () => false): number {
    const want = Math.min(bytes, this.length)
    let seen = this.arrived()
    let still = 0
    while (seen < want) {
      if (this.isCut() || stop()) return -1
      if (Atomics.wait(this.words, WORDS.ARRIVED, seen, WAIT_MS) === 'timed-out') {
        if ((still += WAIT_MS) >= STALL_MS) return -1
      }
      const now = this.arrived()
      if (now !== seen) still = 0
      seen = now
    }
    return seen
  }

  /** Waits for the whole body; throws `uploadCut` when it will not come. */
  waitWhole(): void {
    if (this.waitFor(this.length) < 0) throw uploadCut(this.arrived(), this.length)
  }
}

/** The error of an import whose upload stopped short. */
export function uploadCut(arrived: number, length: number): AppError {
  return new AppError(
    'BAD_ARGUMENTS',
    `the upload stopped after ${arrived.toLocaleString('en-US')} of its ${length.toLocaleString('en-US')} bytes: nothing imported; send the file again`,
    { field: 'content' },
  )
}

const arriving = new WeakMap<Uint8Array, FeedArrival>()

/** The host: `bytes` are still arriving, as `arrival` says. */
export function registerArrival(bytes: Uint8Array, arrival: FeedArrival): void {
  arriving.set(bytes, arrival)
}

/** The arrival of bytes the host dispatched before they were in, else null (bytes complete). */
export function arrivalOf(bytes: Uint8Array): FeedArrival | null {
  return arriving.get(bytes) ?? null
}
