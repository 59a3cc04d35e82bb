/**
 * Logging that may repeat at every request or write, bounded: a full disk once made the browser
 * host write 293,000 lines in 40 s (the audit checkpoint failing at each entry, the same error at
 * each call). A line of a kind (a short name: 'audit-checkpoint', 'host', 'unexpected:<channel>')
 * is written as it is the first time; further lines of that kind within the minute are only
 * counted, and written as one summary when the minute ends ("<kind>: repeated N more times in the
 * last 60 s; the last: …"), by a timer or at the next line of the kind, whichever comes first.
 * A kind quiet for a whole minute is written afresh. At most about two lines a minute per kind,
 * and the kinds kept are bounded (the oldest forgotten).
 */
import { format } from 'node:util'

export interface LogLimitOptions {
  /** The summary's period (60 s). */
  everyMs?: number
  now?: () => number
  /** Where a line goes (console.error). */
  write?: (line: string) => void
  /** How a summary is made at the end of its minute (an unref'd setTimeout); null: only at the kind's next line. */
  schedule?: ((fn: () => void, ms: number) => void) | null
  /** Kinds kept at most (1000). */
  maxKinds?: number
}

export interface LogLimit {
  (kind: string, ...parts: unknown[]): void
  /** Every pending summary written now. */
  flush(): void
}

interface KindState {
  /** When the current minute of the kind ends. */
  ends: number
  started: number
  repeated: number
  last: string
  timer: boolean
}

const firstLine = (text: string) => text.split('\n', 1)[0]

const laterByTimer = (fn: () => void, ms: number) => {
  setTimeout(fn, ms).unref?.()
}

export function createLogLimit(o: LogLimitOptions = {}): LogLimit {
  const everyMs = o.everyMs ?? 60_000
  const now = o.now ?? Date.now
  const write = o.write ?? ((line: string) => console.error(line))
  const schedule = o.schedule === undefined ? laterByTimer : o.schedule
  const maxKinds = o.maxKinds ?? 1000
  const kinds = new Map<string, KindState>()

  /** The kind's minute has ended: its summary, if anything repeated; it then starts a new minute, or is forgotten when quiet. */
  function endMinute(kind: string, s: KindState, at: number): void {
    s.timer = false
    if (s.repeated === 0) {
      kinds.delete(kind)
      return
    }
    const seconds = Math.round((at - s.started) / 1000)
    write(
      `${kind}: repeated ${s.repeated} more time${s.repeated === 1 ? '' : 's'} in the last ${seconds} s; the last: ${s.last}`,
    )
    Object.assign(s, { started: at, ends: at + everyMs, repeated: 0 })
    arm(kind, s)
  }

  function arm(kind: string, s: KindState): void {
    if (!schedule || s.timer) return
    s.timer = true
    schedule(
      () => {
        if (kinds.get(kind) === s && s.timer) endMinute(kind, s, Math.max(now(), s.ends))
      },
      Math.max(0, s.ends - now()),
    )
  }

  const log = ((kind: string, ...parts: unknown[]) => {
    const at = now()
    let s = kinds.get(kind)
    if (s && at >= s.ends) endMinute(kind, s, at)
    s = kinds.get(kind)
    if (s) {
      s.repeated++
      s.last = firstLine(format(...parts))
      return
    }
    if (kinds.size >= maxKinds) kinds.delete(kinds.keys().next().value as string)
    s = { started: at, ends: at + everyMs, repeated: 0, last: '', timer: false }
    kinds.set(kind, s)
    write(format(...parts))
    arm(kind, s)
  }) as LogLimit
  log.flush = () => {
    for (const [kind, s] of [...kinds]) endMinute(kind, s, now())
  }
  return log
}

/** The process's own: every repeating failure of the app, the host and the command line goes through it. */
export const limitedLog = createLogLimit()
