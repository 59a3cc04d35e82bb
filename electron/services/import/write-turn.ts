/**
 * Whose turn it is to write a SQLite ledger, between the host's thread (the app's calls) and its
 * import worker (docs/DESIGN.md).
 *
 * SQLite has one writer per file. A call that writes while an import's transaction holds the
 * file used to wait in SQLite's busy handler, on the host's own thread: nothing else was
 * answered meanwhile, not even the upload that the import was waiting for, and after 5 s the
 * call failed with "database is locked". With the turn:
 * - the import worker takes the turn before its transaction and gives it back after (`hold`,
 *   blocking: it is a worker), once no call of the host is in one;
 * - a call of the host that may write takes it with `enter` (a promise: the event loop stays
 *   free, and read-only calls never take it) and gives it back when it ends. Several calls of the
 *   host hold it at once (their statements take turns on one connection anyway);
 * - an import that waits for the turn goes before calls that arrive after it, and calls that
 *   wait go before the next import: neither side starves.
 * The turn lives in shared memory (one Int32Array): the host's thread and the worker see it at once.
 */

/** The words of the turn's memory. */
const STATE = 0 // > 0: so many calls of the host hold the turn; -1: an import holds it; 0: free
const IMPORT_WAITS = 1 // imports waiting for the turn
const CALLS_WAIT = 2 // calls of the host waiting for the turn
const WORDS = 3
const IMPORT = -1
/** The longest a waiter sleeps before it looks again (Atomics' wake-ups can be missed across threads). */
const NAP_MS = 20

export class WriteTurn {
  private readonly words: Int32Array

  private constructor(readonly memory: SharedArrayBuffer) {
    this.words = new Int32Array(memory)
  }

  static create(): WriteTurn {
    return new WriteTurn(new SharedArrayBuffer(WORDS * 4))
  }

  /** The turn whose memory another thread made (the import worker's view of the host's). */
  static of(memory: SharedArrayBuffer): WriteTurn {
    return new WriteTurn(memory)
  }

  /** The host's side: resolves once this call holds the turn; call the function it gives to give it back. */
  async enter(): Promise<() => void> {
    const w = this.words
    Atomics.add(w, CALLS_WAIT, 1)
    try {
      for (;;) {
        const state = Atomics.load(w, STATE)
        // an import that waits goes first: the calls in their turn end, the new ones wait
        const importFirst = Atomics.load(w, IMPORT_WAITS) > 0
        if (state >= 0 && !importFirst && Atomics.compareExchange(w, STATE, state, state + 1) === state) break
        await waitAsync(w, importFirst ? IMPORT_WAITS : STATE, importFirst ? Atomics.load(w, IMPORT_WAITS) : state)
      }
    } finally {
      Atomics.sub(w, CALLS_WAIT, 1)
      Atomics.notify(w, CALLS_WAIT)
    }
    let given = false
    return () => {
      if (given) return
      given = true
      Atomics.sub(w, STATE, 1)
      Atomics.notify(w, STATE)
    }
  }

  /** The import's side: `fn` run while it holds the turn (this thread blocks until it has it). */
  hold<T>(fn: () => T): T {
    const w = this.words
    // calls that were waiting go first: an import that follows another does not shut them out
    while (Atomics.load(w, CALLS_WAIT) > 0 && Atomics.load(w, STATE) !== IMPORT)
      Atomics.wait(w, CALLS_WAIT, Atomics.load(w, CALLS_WAIT), NAP_MS)
    Atomics.add(w, IMPORT_WAITS, 1)
    try {
      for (;;) {
        if (Atomics.compareExchange(w, STATE, 0, IMPORT) === 0) break
        Atomics.wait(w, STATE, Atomics.load(w, STATE), NAP_MS)
      }
    } finally {
      Atomics.sub(w, IMPORT_WAITS, 1)
      Atomics.notify(w, IMPORT_WAITS)
    }
    try {
      return fn()
    } finally {
      Atomics.store(w, STATE, 0)
      Atomics.notify(w, STATE)
    }
  }
}

/** Node's Atomics.waitAsync (V8 has it; TypeScript's library of this target does not say so). */
type WaitAsync = (
  w: Int32Array,
  index: number,
  value: number,
  ms: number,
) => { async: boolean; value: Promise<string> | string }
const atomicsWaitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync

/** Resolves when `w[index]` is no longer `value`, or after NAP_MS, without blocking the event loop. */
function waitAsync(w: Int32Array, index: number, value: number): Promise<unknown> {
  const r = atomicsWaitAsync(w, index, value, NAP_MS)
  return r.async ? (r.value as Promise<string>) : Promise.resolve(r.value)
}
