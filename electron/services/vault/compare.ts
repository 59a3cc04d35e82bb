/**
 * The ledger held against its vault, for `audit verify` and `ledger check`. The vault's latest
 * checkpoint, signed with the ledger's vault key, names the last audit entry it received (number
 * and hash) and each emission's last sale: a ledger whose log was cut below it, or rewritten (the
 * chain binds every entry before), or whose sales were removed, is named. Each witness's last
 * cosigned checkpoint must still be in the vault's history with the same root: a vault rolled
 * back or rewritten after a witness signed is named too. The files themselves: `vault verify`.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { formatSerial } from '../../../game-core/serial'
import type { VaultComparison, WitnessSeen } from '../../contract/types'
import { splitUnitKey } from '../../ledger/unit-key'
import { CHECKPOINT_FILE, CHECKPOINTS_FILE } from './format'
import { readCosignatures } from './cosigned'
import { readDescription } from './folder'
import { logProblem } from './follows'
import { parseCheckpoint, parseNote, verifyNote } from './note'
import type { VaultSigner } from './signer'
import type { VaultSources } from './sources'

interface Signed {
  size: number
  root: string
  extensions: string[]
}

function signedCheckpoint(note: string, signer: VaultSigner): Signed | null {
  if (!verifyNote(note, signer.verifierKey)) return null
  const c = parseCheckpoint(parseNote(note).body)
  return { size: c.size, root: c.rootHash.toString('base64'), extensions: c.extensions }
}

/** The audit entry the vault last received, against the ledger's log. */
function auditProblem(ext: string[], sources: VaultSources): string | null {
  const line = ext.find((l) => l.startsWith('audit '))
  if (!line) return null
  const [, seq, hash] = line.split(' ')
  return logProblem({ seq: Number(seq), hash }, sources)
}

/** Each emission's last sale the vault received, which the ledger must still hold. */
function salesProblems(ext: string[], sources: VaultSources): string[] {
  const sold = new Map(sources.emissions().map((e) => [e.emission, e]))
  const problems: string[] = []
  for (const line of ext.filter((l) => l.startsWith('sales '))) {
    const [, emission, count, last] = line.split(' ').map(Number)
    const e = sold.get(emission)
    if (e && e.sold >= count && sources.holdsSale(last)) continue
    const serial = formatSerial(splitUnitKey(last), e?.blockSize)
    problems.push(
      `the vault received ${count} sales of emission ${emission}, the last of unit ${serial}; the ledger holds ` +
        `${e?.sold ?? 0}${sources.holdsSale(last) ? '' : ' and not that unit'}: sales were removed`,
    )
  }
  return problems
}

/** Each checkpoint the vault signed, by size (its root), from its history. */
function historyRoots(folder: string, signer: VaultSigner): Map<number, string> {
  const roots = new Map<number, string>()
  let text = ''
  try {
    text = readFileSync(join(folder, CHECKPOINTS_FILE), 'utf8')
  } catch {
    return roots
  }
  for (const line of text.split('\n')) {
    if (!line) continue
    try {
      const c = signedCheckpoint((JSON.parse(line) as { note: string }).note, signer)
      if (c) roots.set(c.size, c.root)
    } catch {
      // a damaged line is `vault verify`'s to name; here it proves nothing
    }
  }
  return roots
}

/** Each witness's last cosignature kept in the vault, against the vault's history. */
function witnessesSeen(folder: string, signer: VaultSigner, size: number): WitnessSeen[] {
  const last = new Map(readCosignatures(folder).map((c) => [c.witness, c]))
  if (last.size === 0) return []
  const roots = historyRoots(folder, signer)
  return [...last.values()].map(({ witness, size: cosigned, root, at, problem }) => {
    const seen = { witness, size: cosigned, at }
    if (problem) return { ...seen, problem }
    if (cosigned > size)
      return { ...seen, problem: `it cosigned ${cosigned} events; the vault holds ${size}: the vault was rolled back` }
    if (roots.get(cosigned) !== root)
      return {
        ...seen,
        problem: `the vault's checkpoint of ${cosigned} events is not the one it cosigned: the vault was rewritten`,
      }
    return { ...seen, problem: null }
  })
}

export function compareWithVault(
  folder: string,
  ledgerId: string,
  signer: VaultSigner,
  sources: VaultSources,
): VaultComparison {
  const base = { folder, size: 0, problems: [] as string[], witnesses: [] as WitnessSeen[] }
  let note: string
  try {
    const d = readDescription(folder)
    if (d.ledger !== ledgerId) return { ...base, ok: false, problems: [`${folder} is the vault of ledger ${d.ledger}`] }
    note = readFileSync(join(folder, CHECKPOINT_FILE), 'utf8')
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === 'ENOENT'
    // attached, nothing sent yet; unless checkpoints were signed, and the latest removed
    if (missing && historyRoots(folder, signer).size === 0) return { ...base, ok: true, problems: [] }
    return {
      ...base,
      ok: false,
      problems: [`the vault cannot be read, so the log was not compared: ${(e as Error).message}`],
    }
  }
  const cp = signedCheckpoint(note, signer)
  if (!cp)
    return { ...base, ok: false, problems: ["the vault's checkpoint is not signed with this ledger's vault key"] }
  const witnesses = witnessesSeen(folder, signer, cp.size)
  const problems = [
    auditProblem(cp.extensions, sources),
    ...salesProblems(cp.extensions, sources),
    ...witnesses.filter((w) => w.problem).map((w) => `witness ${w.witness}: ${w.problem}`),
  ].filter((p): p is string => p !== null)
  return { folder, size: cp.size, ok: problems.length === 0, problems, witnesses }
}
