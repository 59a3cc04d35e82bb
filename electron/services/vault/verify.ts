/**
 * `carats vault verify`: a vault checked from its files and its public key alone. Every line in
 * its place; the Merkle tree rebuilt from the lines; every checkpoint of its history signed by the
 * key and equal to the tree at its size (so each extends the one before); the latest checkpoint
 * signing every line; each witness's cosignatures holding, on checkpoints the tree matches; and,
 * when asked, one event's inclusion proved against the latest checkpoint.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { CHECKPOINT_FILE, CHECKPOINTS_FILE, linePrefix } from './format'
import { readDescription } from './folder'
import { forEachLine, type LineAt } from './lines'
import { parseCheckpoint, parseNote, parseVerifierKey, verifyNote } from './note'
import { appendLeaf, frontierRoot, inclusionPath, leafHashOf, verifyInclusion } from './tlog'
import { readCosignatures } from './cosigned'
import type { VaultInclusion, VaultVerification } from '../../contract/types'

export type { VaultVerification }
import { readStart } from './start'

/** Problems a verification lists (it counts them all). */
export const VAULT_PROBLEMS_LISTED = 100

interface History {
  /** size → root (base64) and when, from every checkpoint that holds. */
  roots: Map<number, { root: string; at: string | null }>
  latest: { size: number; at: string | null; root: string } | null
  count: number
}

function noter(v: VaultVerification) {
  return (p: string) => {
    v.problemCount++
    if (v.problems.length < VAULT_PROBLEMS_LISTED) v.problems.push(p)
  }
}

function readHistory(folder: string, key: string, origin: string, problem: (p: string) => void): History {
  const h: History = { roots: new Map(), latest: null, count: 0 }
  let text = ''
  try {
    text = readFileSync(join(folder, CHECKPOINTS_FILE), 'utf8')
  } catch {
    return h
  }
  let last = 0
  text.split('\n').forEach((line, k) => {
    if (!line) return
    h.count++
    const where = `${CHECKPOINTS_FILE} line ${k + 1}`
    try {
      const { note, at } = JSON.parse(line) as { note: string; at?: string }
      if (!verifyNote(note, key)) return problem(`${where}: its signature does not hold under the vault's key`)
      const c = parseCheckpoint(parseNote(note).body)
      if (c.origin !== origin) return problem(`${where}: a checkpoint of another log (${c.origin})`)
      if (c.size < last) problem(`${where}: signs ${c.size} events after a checkpoint of ${last}: the log went back`)
      const root = c.rootHash.toString('base64')
      const seen = h.roots.get(c.size)
      if (seen && seen.root !== root)
        problem(`${where}: two checkpoints of ${c.size} events disagree: the log was forked`)
      h.roots.set(c.size, { root, at: at ?? null })
      h.latest = { size: c.size, at: at ?? null, root }
      last = Math.max(last, c.size)
    } catch (e) {
      problem(`${where}: ${(e as Error).message}`)
    }
  })
  return h
}

function checkLatest(folder: string, key: string, h: History, problem: (p: string) => void): void {
  let note: string
  try {
    note = readFileSync(join(folder, CHECKPOINT_FILE), 'utf8')
  } catch {
    if (h.count > 0) problem(`the vault's ${CHECKPOINT_FILE} file is missing`)
    return
  }
  if (!verifyNote(note, key)) return problem(`${CHECKPOINT_FILE}: its signature does not hold under the vault's key`)
  const c = parseCheckpoint(parseNote(note).body)
  if (!h.latest || c.size !== h.latest.size || c.rootHash.toString('base64') !== h.latest.root)
    problem(`${CHECKPOINT_FILE} (${c.size} events) is not the last checkpoint of ${CHECKPOINTS_FILE}`)
}

interface Walked {
  events: number
  /** The first event the files hold (after those `start.json` sums up, in an export or a purged vault). */
  first: number
  /** The leaf hashes, packed, when an event's inclusion is to be proved; and that event's line. */
  leaves: Buffer[]
  line: string
}

/** Rebuilds the tree from the lines, comparing it with each checkpoint (history and witnesses) at its size. */
function walkLines(
  folder: string,
  wanted: Map<number, { root: string; what: string }[]>,
  event: number | undefined,
  problem: (p: string) => void,
): Walked {
  const start = readStart(folder)
  let f = start.frontier
  const walked: Walked = { events: start.size, first: start.size, leaves: [], line: '' }
  forEachLine(folder, (line, at) => {
    const i = walked.events
    const prefix = linePrefix(i)
    if (line.subarray(0, prefix.length).toString('latin1') !== prefix)
      problem(`${where(at)}: not event ${i}: a line was removed, inserted or moved`)
    const leaf = leafHashOf(line)
    if (event !== undefined) walked.leaves.push(leaf)
    if (i === event) walked.line = line.toString('utf8')
    f = appendLeaf(f, leaf)
    walked.events = i + 1
    for (const w of wanted.get(i + 1) ?? []) {
      if (frontierRoot(f).toString('base64') !== w.root)
        problem(
          `${w.what} does not match the first ${i + 1} events (up to ${where(at)}): an event was altered, removed or inserted`,
        )
    }
  })
  return walked
}

const where = (at: LineAt) => `${at.file} line ${at.lineNo}`

export function verifyVault(folder: string, opts: { key?: string; event?: number } = {}): VaultVerification {
  const d = readDescription(folder)
  const key = opts.key ?? d.key
  const v: VaultVerification = {
    ok: false,
    folder,
    origin: d.origin,
    ledger: d.ledger,
    key,
    keyFrom: opts.key ? 'given' : 'vault.json',
    events: 0,
    firstEvent: 0,
    checkpoints: 0,
    latest: null,
    unsigned: 0,
    witnesses: [],
    problems: [],
    problemCount: 0,
    inclusion: null,
  }
  const problem = noter(v)
  parseVerifierKey(key)
  const h = readHistory(folder, key, d.origin, problem)
  checkLatest(folder, key, h, problem)
  v.witnesses = readCosignatures(folder)
  const wanted = new Map<number, { root: string; what: string }[]>()
  const want = (size: number, root: string, what: string) =>
    wanted.set(size, [...(wanted.get(size) ?? []), { root, what }])
  for (const [size, { root, at }] of h.roots) want(size, root, `the checkpoint of ${size} events (${at ?? 'undated'})`)
  for (const w of v.witnesses) {
    if (w.problem) problem(`witness ${w.witness}: ${w.problem}`)
    else want(w.size, w.root, `the checkpoint of ${w.size} events that witness ${w.witness} cosigned`)
  }
  const walked = walkLines(folder, wanted, opts.event, problem)
  v.events = walked.events
  v.checkpoints = h.count
  v.latest = h.latest ? { size: h.latest.size, at: h.latest.at } : null
  const signed = h.latest?.size ?? 0
  if (walked.events < signed)
    problem(`the vault holds ${walked.events} events, its checkpoint signs ${signed}: events were cut`)
  for (const w of v.witnesses)
    if (!w.problem && w.size > walked.events)
      problem(`witness ${w.witness} cosigned ${w.size} events; the vault holds ${walked.events}: it was rolled back`)
  v.unsigned = Math.max(0, walked.events - signed)
  v.firstEvent = walked.first
  if (opts.event !== undefined && h.latest) v.inclusion = prove(opts.event, h.latest, walked, problem)
  v.ok = v.problemCount === 0
  return v
}

function prove(
  event: number,
  latest: { size: number; root: string },
  walked: Walked,
  problem: (p: string) => void,
): VaultInclusion | null {
  if (walked.first > 0) {
    problem(`this vault's files begin at event ${walked.first} (start.json): an inclusion is proved on the whole vault`)
    return null
  }
  if (!Number.isInteger(event) || event < 0 || event >= latest.size) {
    problem(`event ${event} is not among the ${latest.size} events the latest checkpoint signs`)
    return null
  }
  const path = inclusionPath(walked.leaves, event, latest.size)
  const root = Buffer.from(latest.root, 'base64')
  const ok = verifyInclusion(walked.leaves[event], event, latest.size, path, root)
  if (!ok) problem(`event ${event}'s inclusion does not hold against the latest checkpoint`)
  return {
    event,
    line: walked.line,
    size: latest.size,
    root: latest.root,
    path: path.map((p) => p.toString('base64')),
    ok,
  }
}
