/**
 * A vault's days taken out (for a regulator) or let go (after the retention period), in the same
 * open format. What comes before the first day kept is summed up in `start.json`: the number of
 * events before it and the tree's frontier there (RFC 6962 subtree roots), from which `vault
 * verify` goes on; the checkpoints kept are checked from it, which authenticates it too.
 */
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { AppError, because } from '../../contract/errors'
import { CHECKPOINT_FILE, CHECKPOINTS_FILE, COSIGNED_DIR, EVENTS_DIR, START_FILE, VAULT_FILE } from './format'
import { readDescription } from './folder'
import { eventFiles, forEachLine } from './lines'
import { readStart } from './start'
import { appendLeaf, cloneFrontier, frontierToJson, leafHashOf, type Frontier } from './tlog'

/** Six years (ANJ): vault data younger than this is never purged. */
export const RETENTION_YEARS = 6

export interface VaultCut {
  /** Events before the first day kept, and the tree's frontier after them. */
  size: number
  frontier: Frontier
  /** The day files kept (from `from` to `to`). */
  files: string[]
  /** Events in the files kept. */
  events: number
}

/** Folds the lines before `from` into the frontier, and counts those from `from` to `to`. */
function cutAt(folder: string, from: string, to: string): VaultCut {
  const start = readStart(folder)
  let f = start.frontier
  let i = start.size
  let size: number | null = null
  let frontier: Frontier = f
  const files = eventFiles(folder).filter((n) => n.slice(0, 10) >= from && n.slice(0, 10) <= to)
  forEachLine(
    folder,
    (line, at) => {
      if (size === null && at.file.slice(0, 10) >= from) {
        size = i
        frontier = cloneFrontier(f)
      }
      f = appendLeaf(f, leafHashOf(line))
      i++
    },
    (n) => n.slice(0, 10) <= to,
  )
  if (size === null) {
    size = i
    frontier = cloneFrontier(f)
  }
  return { size, frontier, files, events: i - size }
}

function jsonLines(path: string): string[] {
  return existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
    : []
}

const sizeOf = (line: string) => (JSON.parse(line) as { size: number }).size
const cosignedSize = (line: string) => Number((JSON.parse(line) as { note: string }).note.split('\n')[1])

/** Days `from`…`to` of the vault into a new folder `out`, in the same format, verifiable on its own. */
export function exportVault(folder: string, from: string, to: string, out: string, at: string) {
  readDescription(folder)
  if (existsSync(out) && readdirSync(out).length > 0)
    throw new AppError(
      'CONFLICT',
      `${out} is not empty: an export goes to a new folder`,
      because('VAULT_NOT_EMPTY', { folder: out }),
    )
  const cut = cutAt(folder, from, to)
  const end = cut.size + cut.events
  mkdirSync(join(out, EVENTS_DIR), { recursive: true })
  copyFileSync(join(folder, VAULT_FILE), join(out, VAULT_FILE))
  for (const f of cut.files) copyFileSync(join(folder, EVENTS_DIR, f), join(out, EVENTS_DIR, f))
  const inRange = (n: number) => n >= cut.size && n <= end
  const checkpoints = jsonLines(join(folder, CHECKPOINTS_FILE)).filter((l) => inRange(sizeOf(l)))
  writeFileSync(join(out, CHECKPOINTS_FILE), checkpoints.map((l) => l + '\n').join(''))
  if (checkpoints.length > 0)
    writeFileSync(
      join(out, CHECKPOINT_FILE),
      (JSON.parse(checkpoints[checkpoints.length - 1]) as { note: string }).note,
    )
  if (existsSync(join(folder, COSIGNED_DIR))) {
    mkdirSync(join(out, COSIGNED_DIR))
    for (const w of readdirSync(join(folder, COSIGNED_DIR))) {
      const kept = jsonLines(join(folder, COSIGNED_DIR, w)).filter((l) => inRange(cosignedSize(l)))
      if (kept.length > 0) appendFileSync(join(out, COSIGNED_DIR, w), kept.map((l) => l + '\n').join(''))
    }
  }
  writeStart(out, cut, { reason: 'export', from, to, at })
  return { folder: out, from, to, firstEvent: cut.size, events: cut.events, files: cut.files.length }
}

function writeStart(folder: string, cut: VaultCut, why: Record<string, string>): void {
  const start = { size: cut.size, frontier: frontierToJson(cut.frontier), ...why }
  writeFileSync(join(folder, START_FILE), JSON.stringify(start, null, 2) + '\n')
}

/** The first day that may not be purged on `today`: six years back. */
export function retainedFrom(today: Date): string {
  const d = new Date(today)
  d.setUTCFullYear(d.getUTCFullYear() - RETENTION_YEARS)
  return d.toISOString().slice(0, 10)
}

/** Lets go of the day files before `before`, once they are six years old; what follows still verifies. */
export function purgeVault(folder: string, before: string, today: Date) {
  readDescription(folder)
  const keepFrom = retainedFrom(today)
  if (before > keepFrom)
    throw new AppError(
      'FORBIDDEN',
      `the vault keeps six years: days from ${keepFrom} on cannot be purged (asked: before ${before})`,
      because('VAULT_RETENTION', { before, keepFrom }),
    )
  const gone = eventFiles(folder).filter((n) => n.slice(0, 10) < before)
  const earlier = readStart(folder).size
  const cut = cutAt(folder, before, '9999-12-31')
  writeStart(folder, cut, { reason: 'purge', before, at: today.toISOString() })
  for (const f of gone) rmSync(join(folder, EVENTS_DIR, f))
  return { folder, before, files: gone.length, events: cut.size - earlier }
}
