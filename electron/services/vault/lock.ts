/**
 * One writer at a time: a vault is appended to by the one process that holds `writer.lock` in
 * its folder (made with O_EXCL, its time touched while it writes). A lock whose process ended on
 * this host, or not touched for LOCK_STALE_MS, is taken over. The ledger's own write locks are not
 * used: a vault is written beside a long import, never waiting for it.
 */
import { closeSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { processIsAlive } from '../common'
import { LOCK_FILE } from './format'

export const LOCK_STALE_MS = 60_000
export const LOCK_TOUCH_MS = 10_000

export interface WriterLock {
  /** Keeps the lock alive (at most every LOCK_TOUCH_MS); false when another process took it over. */
  touch(): boolean
  release(): void
}

interface Holder {
  host: string
  pid: number
  at: string
  /** Which lock of its process (a process may open the ledger twice: the app and a command in tests). */
  token: string
}

/** The tokens of the locks this process holds: one of its own that is not among them was lost (its folder went away). */
const heldHere = new Set<string>()

function holderOf(path: string): Holder | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Holder
  } catch {
    return null
  }
}

function isStale(path: string, now: number): boolean {
  const st = statSync(path, { throwIfNoEntry: false })
  if (!st) return true
  if (now - st.mtimeMs > LOCK_STALE_MS) return true
  const h = holderOf(path)
  if (h === null || h.host !== hostname()) return false
  return h.pid === process.pid ? !heldHere.has(h.token) : !processIsAlive(h.pid)
}

function create(path: string, mine: Holder): boolean {
  let fd: number
  try {
    fd = openSync(path, 'wx', 0o644)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw e
  }
  writeSync(fd, JSON.stringify(mine))
  closeSync(fd)
  return true
}

/** Who holds the vault's lock, if anyone does (for the status: "written by …"). */
export function lockHolder(folder: string): Holder | null {
  const path = join(folder, LOCK_FILE)
  try {
    return isStale(path, Date.now()) ? null : holderOf(path)
  } catch {
    return null // the folder cannot be read: the status says so from the last round
  }
}

/** Takes the vault's lock, or null while another live process holds it. */
export function takeWriterLock(folder: string): WriterLock | null {
  const path = join(folder, LOCK_FILE)
  const mine: Holder = { host: hostname(), pid: process.pid, at: new Date().toISOString(), token: randomUUID() }
  if (!create(path, mine)) {
    if (!isStale(path, Date.now())) return null
    rmSync(path, { force: true })
    if (!create(path, mine)) return null
  }
  heldHere.add(mine.token)
  let touched = Date.now()
  const stillMine = () => {
    const h = holderOf(path)
    if (h !== null && h.host === mine.host && h.token === mine.token) return true
    heldHere.delete(mine.token)
    return false
  }
  return {
    touch() {
      if (!stillMine()) return false
      const now = Date.now()
      if (now - touched >= LOCK_TOUCH_MS) {
        utimesSync(path, new Date(now), new Date(now))
        touched = now
      }
      return true
    },
    release() {
      if (stillMine()) rmSync(path, { force: true })
      heldHere.delete(mine.token)
    },
  }
}
