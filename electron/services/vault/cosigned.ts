/**
 * The witnesses' cosignatures, kept in the vault (`cosigned/<witness>.jsonl`, one line per
 * cosigned checkpoint: the witness's name and verifier key, and the checkpoint's note with the
 * vault's signature and the witness's cosignature/v1 line). Each is checked here with the
 * witness's key; whether the vault's tree matches it is for the reader (verify.ts, compare.ts).
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CosignedRead } from '../../contract/types'
import { COSIGNED_DIR } from './format'
import { parseCheckpoint, parseNote, parseVerifierKey, verifyCosignature } from './note'

export interface CosignedLine {
  witness: string
  /** The witness's verifier key (signed-note form, type cosignature/v1). */
  key: string
  note: string
}

const fileOf = (witness: string) => `${witness.replace(/[^A-Za-z0-9._-]/g, '_')}.jsonl`

export function appendCosignature(folder: string, line: CosignedLine): void {
  mkdirSync(join(folder, COSIGNED_DIR), { recursive: true })
  appendFileSync(join(folder, COSIGNED_DIR, fileOf(line.witness)), JSON.stringify(line) + '\n')
}

function readOne(text: string): CosignedRead {
  let c: CosignedLine
  try {
    c = JSON.parse(text) as CosignedLine
  } catch {
    return { witness: '?', size: 0, root: '', at: null, problem: 'a cosignature line is not JSON' }
  }
  const witness = String(c.witness)
  try {
    const cp = parseCheckpoint(parseNote(c.note).body)
    const seen = { witness, size: cp.size, root: cp.rootHash.toString('base64') }
    const check = verifyCosignature(c.note, witness, parseVerifierKey(c.key).publicKey)
    if (!check.ok) return { ...seen, at: null, problem: `its cosignature does not hold: ${check.reason}` }
    return { ...seen, at: new Date(check.time * 1000).toISOString(), problem: null }
  } catch (e) {
    return { witness, size: 0, root: '', at: null, problem: (e as Error).message }
  }
}

/** Every cosignature the vault keeps, each witness's in order. */
export function readCosignatures(folder: string): CosignedRead[] {
  let files: string[]
  try {
    files = readdirSync(join(folder, COSIGNED_DIR)).filter((n) => n.endsWith('.jsonl'))
  } catch {
    return []
  }
  return files.sort().flatMap((f) =>
    readFileSync(join(folder, COSIGNED_DIR, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map(readOne),
  )
}
