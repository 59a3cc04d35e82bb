/**
 * The vault's folder as its one writer sees it: events appended to the day's file, made durable
 * (fsync), then the writer's place (`state.json`) and a signed checkpoint. A crash between the two
 * leaves lines past the place the state records: they are cut when the folder is opened again, and
 * sent again from the ledger, which still holds them. Nothing signed is ever cut.
 */
import {
  appendFileSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import { AppError, because } from '../../contract/errors'
import { pathExists } from '../common'
import {
  CHECKPOINT_FILE,
  CHECKPOINTS_FILE,
  dayOf,
  EVENT_FILE_PATTERN,
  eventFileName,
  EVENTS_DIR,
  STATE_FILE,
  VAULT_FILE,
  VAULT_FORMAT,
  type VaultDescription,
} from './format'
import { appendLeaf, emptyFrontier, frontierFromJson, frontierRoot, frontierToJson, leafHashOf } from './tlog'
import type { Frontier, FrontierJson } from './tlog'
import { checkpointBody, parseCheckpoint, parseNote } from './note'
import type { VaultSigner } from './signer'

/** Where the writer stands: what the log holds, and up to where each source was sent. */
export interface VaultState {
  size: number
  frontier: FrontierJson
  /** The day file written last, and its length once its lines were made durable. */
  day: string | null
  dayBytes: number
  /** The last audit entry sent (its number and hash in the ledger's chain). */
  audit: { seq: number; hash: string } | null
  /** Per emission (its number), how many of its sales were sent and the key of the last: units sell in order. */
  sales: Record<string, { count: number; last: number }>
  /** When the last checkpoint was signed. */
  signedAt: string | null
}

const emptyState = (): VaultState => ({
  size: 0,
  frontier: frontierToJson(emptyFrontier()),
  day: null,
  dayBytes: 0,
  audit: null,
  sales: {},
  signedAt: null,
})

function writeAtomically(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`
  const fd = openSync(tmp, 'w', 0o644)
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, path)
}

export function readDescription(folder: string): VaultDescription {
  const path = join(folder, VAULT_FILE)
  let d: VaultDescription
  try {
    d = JSON.parse(readFileSync(path, 'utf8')) as VaultDescription
  } catch (e) {
    throw new AppError(
      'NOT_FOUND',
      `${path} cannot be read (${(e as Error).message}): is ${folder} a vault, and is its share reachable?`,
      because('VAULT_UNREADABLE', { folder }),
    )
  }
  if (d?.format !== VAULT_FORMAT || typeof d.ledger !== 'string' || typeof d.key !== 'string')
    throw new AppError('BAD_ARGUMENTS', `${path} is not a vault's description (format ${VAULT_FORMAT})`)
  return d
}

/** Makes a new vault in an empty (or new) folder, or finds the one already made there for this ledger. */
export function prepareVaultFolder(folder: string, d: VaultDescription): void {
  if (pathExists(join(folder, VAULT_FILE))) {
    const found = readDescription(folder)
    if (found.ledger !== d.ledger)
      throw new AppError(
        'CONFLICT',
        `${folder} is the vault of another ledger (${found.ledger}): give a folder of this ledger's or an empty one`,
        because('VAULT_OTHER_LEDGER', { folder, ledger: found.ledger }),
      )
    return
  }
  mkdirSync(join(folder, EVENTS_DIR), { recursive: true })
  const stray = readdirSync(folder).filter((f) => f !== EVENTS_DIR)
  if (stray.length > 0 || readdirSync(join(folder, EVENTS_DIR)).length > 0)
    throw new AppError(
      'CONFLICT',
      `${folder} is not empty (${stray.slice(0, 3).join(', ')}…): a vault starts in an empty folder`,
      because('VAULT_NOT_EMPTY', { folder }),
    )
  writeAtomically(join(folder, STATE_FILE), JSON.stringify(emptyState(), null, 2) + '\n')
  writeAtomically(join(folder, VAULT_FILE), JSON.stringify(d, null, 2) + '\n')
}

export interface VaultWriter {
  readonly state: VaultState
  /** Appends lines built for the indexes from `state.size` on (durable at the commit). */
  append(lines: string[], at: string): void
  /** Makes the lines durable, records the sources' places and signs a checkpoint of the log as it stands. */
  commit(signer: VaultSigner, at: string): void
  /** Closes the day file (the writer is dropped). */
  close(): void
}

/** The events the vault's latest checkpoint signs (0: none signed yet). */
function signedSize(folder: string): number {
  let note: string
  try {
    note = readFileSync(join(folder, CHECKPOINT_FILE), 'utf8')
  } catch {
    return 0 // none yet; one removed is `vault verify`'s to name (checkpoints.jsonl keeps them all)
  }
  return parseCheckpoint(parseNote(note).body).size
}

const stateProblem = (folder: string, what: string) =>
  new AppError(
    'ILLEGAL_STATE',
    `the vault's writer place ${join(folder, STATE_FILE)} ${what}: nothing is written nor cut until the vault's ` +
      'own copy is put back (the events wait in the ledger)',
    because('VAULT_STATE', { folder }),
  )

/**
 * The writer's place. One older than the vault's latest checkpoint (put back from a copy) would
 * have the writer cut signed events as a crash's leftovers: refused, as is one missing.
 */
export function readVaultState(folder: string): VaultState {
  let s: VaultState
  try {
    s = JSON.parse(readFileSync(join(folder, STATE_FILE), 'utf8')) as VaultState
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT'
    throw stateProblem(folder, missing ? 'is missing' : `cannot be read (${(e as Error).message})`)
  }
  frontierFromJson(s.frontier) // refuses a damaged one now, not at the next append
  const signed = signedSize(folder)
  if (s.size < signed)
    throw stateProblem(folder, `records ${s.size} events, fewer than the ${signed} the latest checkpoint signs`)
  return s
}

/** Cuts what was written after the last durable state (a crash between the lines and the state). */
function cutUnrecorded(folder: string, s: VaultState): void {
  const dir = join(folder, EVENTS_DIR)
  for (const name of readdirSync(dir)) {
    const day = EVENT_FILE_PATTERN.exec(name)?.[1]
    if (!day || s.day === null || day > s.day) {
      if (day) rmSync(join(dir, name))
    } else if (day === s.day) truncateSync(join(dir, name), s.dayBytes)
  }
}

export function openVaultWriter(folder: string): VaultWriter {
  const state = readVaultState(folder)
  cutUnrecorded(folder, state)
  let frontier: Frontier = frontierFromJson(state.frontier)
  let dayFd: number | null = null
  const closeDay = () => {
    if (dayFd !== null) {
      fsyncSync(dayFd)
      closeSync(dayFd)
    }
    dayFd = null
  }
  return {
    state,
    append(lines, at) {
      if (lines.length === 0) return
      const day = dayOf(at)
      if (day !== state.day) {
        closeDay()
        state.day = day
        state.dayBytes = 0
      }
      const text = lines.join('\n') + '\n'
      dayFd ??= openSync(join(folder, EVENTS_DIR, eventFileName(day)), 'a')
      writeSync(dayFd, text)
      for (const line of lines) frontier = appendLeaf(frontier, leafHashOf(line))
      state.dayBytes += Buffer.byteLength(text)
      state.size += lines.length
    },
    commit(signer, at) {
      // the lines are made durable before the place that records them
      if (dayFd !== null) fsyncSync(dayFd)
      state.frontier = frontierToJson(frontier)
      state.signedAt = at
      writeAtomically(join(folder, STATE_FILE), JSON.stringify(state) + '\n')
      const note = signer.sign(
        checkpointBody({
          origin: signer.origin,
          size: state.size,
          rootHash: frontierRoot(frontier),
          extensions: extensionsOf(state),
        }),
      )
      writeAtomically(join(folder, CHECKPOINT_FILE), note)
      appendFileSync(join(folder, CHECKPOINTS_FILE), JSON.stringify({ size: state.size, at, note }) + '\n')
    },
    close: closeDay,
  }
}

/** The checkpoint's extension lines: up to where each source was sent, so a ledger cut below is named. */
export function extensionsOf(s: Pick<VaultState, 'audit' | 'sales'>): string[] {
  const lines = s.audit ? [`audit ${s.audit.seq} ${s.audit.hash}`] : []
  for (const [emission, { count, last }] of Object.entries(s.sales)) lines.push(`sales ${emission} ${count} ${last}`)
  return lines
}
