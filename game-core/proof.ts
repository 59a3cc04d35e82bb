/**
 * Proofs that one unit is part of a committed block (commitment version 2), showing that unit's
 * record and salt and nothing of any other unit but hashes. Format: DERIVATION.md §8.
 */
import { BlockDeriver, CHUNK_UNITS, LOSING, decodeRecord } from './block'
import { Evaluator } from './evaluate'
import {
  PROOF_BATCH_CHUNKS,
  auditPathFromBatches,
  blockCommitment,
  chunkCount,
  merkleRoot,
  rootFromProof,
} from './commitment'
import { type Primitives, fromHex, toHex, utf8 } from './primitives'
import type { GameDefinition } from './rules'
import { formatSerial } from './serial'
import {
  SALT_BYTES,
  UnitHasher,
  deriveSaltKey,
  isCommitmentVersion,
  unitSalts,
  type CommitmentVersion,
} from './unit-commitment'

export const PROOF_FORMAT = 'carats-unit-proof'

export interface UnitProof {
  format: typeof PROOF_FORMAT
  formatVersion: 1
  serial: string
  emission: number
  block: number
  unit: number
  commitmentVersion: CommitmentVersion
  /** The definition exactly as its digest hashes it (canonical JSON, DERIVATION.md §6). */
  definition: string
  definitionDigest: string
  /** What the unit shows, as `ticket show` prints it. */
  content: { prizeCents: number; tier: number | null; winning: number[]; numbers: number[]; amountsCents: number[] }
  record: string
  salt: string
  /** The chunk holding the unit: its index and every unit's salted hash, the unit's own at `unit − firstUnit`. */
  chunk: { index: number; firstUnit: number; unitHashes: string[] }
  leafCount: number
  /** RFC 6962 audit path of the chunk's leaf, lowest sibling first. */
  path: string[]
  merkleRoot: string
  commitment: string
}

/** The leaves of the proof batch holding `chunk`, from that batch's units alone. */
function batchLeaves(
  deriver: BlockDeriver,
  saltKey: Uint8Array,
  chunk: number,
): { leaves: Uint8Array; hashes: Map<number, Uint8Array> } {
  const { def, prim } = deriver
  const total = chunkCount(def)
  const first = Math.floor(chunk / PROOF_BATCH_CHUNKS) * PROOF_BATCH_CHUNKS
  const count = Math.min(PROOF_BATCH_CHUNKS, total - first)
  const hasher = new UnitHasher(prim, deriver.synthesizer.recordBytes)
  const leaves = new Uint8Array(32 * count)
  const hashes = new Map<number, Uint8Array>()
  for (let c = 0; c < count; c++) {
    const firstUnit = (first + c) * CHUNK_UNITS
    const n = Math.min(CHUNK_UNITS, def.blockSize - firstUnit)
    const msg = new Uint8Array(1 + 32 * n)
    hasher.hashUnits(deriver.records(firstUnit, n), n, unitSalts(prim, saltKey, firstUnit, n), 0, msg, 1)
    leaves.set(prim.sha256(msg), 32 * c)
    hashes.set(first + c, msg.subarray(1))
  }
  return { leaves, hashes }
}

/**
 * The proof of `unit`, from the block's secret (in the deriver) and its stored batch roots
 * (commitment.ts batchRoots). Throws when what it recomputes disagrees with the stored roots.
 */
export function buildUnitProof(
  deriver: BlockDeriver,
  unit: number,
  stored: { definition: string; batchRoots: Uint8Array; merkleRoot: string; commitment: string },
): UnitProof {
  const { def, prim, ref } = deriver
  const ticket = deriver.ticket(unit)
  const saltKey = deriveSaltKey(prim, ref)
  const chunk = Math.floor(unit / CHUNK_UNITS)
  const total = chunkCount(def)
  const { leaves, hashes } = batchLeaves(deriver, saltKey, chunk)
  const batch = Math.floor(chunk / PROOF_BATCH_CHUNKS)
  if (toHex(merkleRoot(prim, leaves)) !== toHex(stored.batchRoots.subarray(32 * batch, 32 * batch + 32))) {
    throw new Error(
      `chunks ${batch * PROOF_BATCH_CHUNKS}… of block ${ref.emission}/${ref.block} do not hash to their stored batch root: verify the block`,
    )
  }
  const path = auditPathFromBatches(prim, chunk, total, stored.batchRoots, leaves)
  const leaf = leaves.subarray(32 * (chunk % PROOF_BATCH_CHUNKS), 32 * (chunk % PROOF_BATCH_CHUNKS) + 32)
  const root = toHex(rootFromProof(prim, leaf, chunk, total, path))
  const commitment = blockCommitment(prim, def, ref, fromHex(root), 2)
  if (root !== stored.merkleRoot || commitment !== stored.commitment)
    throw new Error(`block ${ref.emission}/${ref.block} does not hash to its stored commitment: verify the block`)
  const own = hashes.get(chunk)!
  const unitHashes: string[] = []
  for (let i = 0; i < own.length / 32; i++) unitHashes.push(toHex(own.subarray(32 * i, 32 * i + 32)))
  return {
    format: PROOF_FORMAT,
    formatVersion: 1,
    serial: ticket.serial,
    emission: ref.emission,
    block: ref.block,
    unit,
    commitmentVersion: 2,
    definition: stored.definition,
    definitionDigest: toHex(prim.sha256(utf8(stored.definition))),
    content: {
      prizeCents: ticket.prizeCents,
      tier: ticket.tier,
      winning: ticket.winning,
      numbers: ticket.numbers,
      amountsCents: ticket.amountsCents,
    },
    record: toHex(deriver.records(unit, 1)),
    salt: toHex(unitSalts(prim, saltKey, unit, 1)),
    chunk: { index: chunk, firstUnit: chunk * CHUNK_UNITS, unitHashes },
    leafCount: total,
    path: path.map(toHex),
    merkleRoot: root,
    commitment,
  }
}

export interface ProofCheck {
  valid: boolean
  /** What does not hold, first problem first (empty when valid). */
  problems: string[]
  serial: string
  /** The commitment the proof leads to: compare it with the one on the emission's certificate. */
  commitment: string | null
  prizeCents: number | null
}

const HEX32 = /^[0-9a-f]{64}$/

function sameList(a: readonly number[], b: unknown): boolean {
  return Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i])
}

const failed = (proof: UnitProof, m: string): ProofCheck => ({
  valid: false,
  problems: [m],
  serial: String(proof?.serial ?? ''),
  commitment: null,
  prizeCents: null,
})

/** Checks a proof with nothing but its own contents: content against record, record up to the commitment. */
export function verifyUnitProof(prim: Primitives, proof: UnitProof): ProofCheck {
  try {
    return checkProof(prim, proof)
  } catch (e) {
    return failed(proof, `the proof cannot be read: ${(e as Error).message}`)
  }
}

function checkProof(prim: Primitives, proof: UnitProof): ProofCheck {
  const problems: string[] = []
  const fail = (m: string) => failed(proof, m)
  if (proof?.format !== PROOF_FORMAT || proof.formatVersion !== 1)
    return fail(`not a unit proof of format ${PROOF_FORMAT} 1`)
  if (!isCommitmentVersion(proof.commitmentVersion) || proof.commitmentVersion !== 2)
    return fail(`commitment version ${proof.commitmentVersion} has no unit proofs (only version 2 does)`)
  let def: GameDefinition
  try {
    def = JSON.parse(proof.definition) as GameDefinition
  } catch {
    return fail('the definition is not JSON')
  }
  const digest = toHex(prim.sha256(utf8(proof.definition)))
  if (digest !== proof.definitionDigest)
    problems.push(`the definition hashes to ${digest}, not the ${proof.definitionDigest} the proof states`)
  const { emission, block, unit } = proof
  let serial = ''
  try {
    serial = formatSerial({ emission, block, unit }, def.blockSize)
  } catch (e) {
    return fail(`no such unit: ${(e as Error).message}`)
  }
  if (serial !== proof.serial)
    problems.push(`emission ${emission}, block ${block}, unit ${unit} is serial ${serial}, not ${proof.serial}`)
  const rb = 10 + def.winningCells + 2 * def.yoursCells
  if (!/^[0-9a-f]*$/.test(proof.record) || proof.record.length !== 2 * rb)
    return fail(`the record must be ${rb} bytes in hexadecimal`)
  if (!/^[0-9a-f]*$/.test(proof.salt) || proof.salt.length !== 2 * SALT_BYTES)
    return fail(`the salt must be ${SALT_BYTES} bytes in hexadecimal`)
  const record = fromHex(proof.record)
  const recordUnit = ((record[0] << 24) >>> 0) + (record[1] << 16) + (record[2] << 8) + record[3]
  if (recordUnit !== unit) return fail(`the record is unit ${recordUnit}'s, not unit ${unit}'s`)
  const t = decodeRecord(def, { emission, block }, record, 0)
  const c = proof.content
  if (
    c?.prizeCents !== t.prizeCents ||
    c.tier !== t.tier ||
    !sameList(t.winning, c.winning) ||
    !sameList(t.numbers, c.numbers) ||
    !sameList(t.amountsCents, c.amountsCents)
  ) {
    problems.push('the content shown differs from the record')
  }
  const tier = record[8 + def.winningCells + 2 * def.yoursCells]
  const expected = tier === LOSING ? 0 : def.tiers[tier]?.amountCents
  if (expected !== t.prizeCents)
    problems.push(`the record's prize ${t.prizeCents} cents is not its tier's (${expected ?? 'no such tier'})`)
  const ev = new Evaluator(def)
  const evaluated = ev.runRecord(record, 0)
  if (evaluated < 0) problems.push(`the content breaks the rules: ${ev.problem}`)
  else if (evaluated !== t.prizeCents)
    problems.push(`the content pays ${evaluated} cents, the record says ${t.prizeCents}`)

  const chunk = Math.floor(unit / CHUNK_UNITS)
  const total = chunkCount(def)
  const n = Math.min(CHUNK_UNITS, def.blockSize - chunk * CHUNK_UNITS)
  // fields the check derives: each must still say the truth (a proof with any false field is refused)
  if (proof.chunk?.index !== chunk)
    problems.push(`chunk.index is ${proof.chunk?.index}: unit ${unit} is in chunk ${chunk}`)
  if (proof.chunk?.firstUnit !== chunk * CHUNK_UNITS)
    problems.push(`chunk.firstUnit is ${proof.chunk?.firstUnit}: chunk ${chunk} starts at unit ${chunk * CHUNK_UNITS}`)
  if (proof.leafCount !== total)
    problems.push(`leafCount is ${proof.leafCount}: a block of this game has ${total} leaves`)
  const hashes = proof.chunk?.unitHashes
  if (!Array.isArray(hashes) || hashes.length !== n || !hashes.every((h) => HEX32.test(h)))
    return fail(`chunk ${chunk} needs its ${n} unit hashes`)
  const own = new UnitHasher(prim, rb)
  const mine = new Uint8Array(32)
  own.hashUnits(record, 1, fromHex(proof.salt), 0, mine, 0)
  const position = unit - chunk * CHUNK_UNITS
  if (hashes[position] !== toHex(mine))
    problems.push(`the unit's salted hash ${toHex(mine)} is not the one listed at its place in the chunk`)
  const leafInput = fromHex('00' + hashes.join(''))
  if (!Array.isArray(proof.path) || !proof.path.every((h) => HEX32.test(h)))
    return fail('the path must be a list of 32-byte hashes')
  let root: Uint8Array
  try {
    root = rootFromProof(prim, prim.sha256(leafInput), chunk, total, proof.path.map(fromHex))
  } catch (e) {
    return fail(`the path does not fit leaf ${chunk} of ${total}: ${(e as Error).message}`)
  }
  if (toHex(root) !== proof.merkleRoot) problems.push(`the path leads to root ${toHex(root)}, not ${proof.merkleRoot}`)
  const commitment = blockCommitment(prim, def, { emission, block }, root, 2)
  if (commitment !== proof.commitment)
    problems.push(`the proof leads to commitment ${commitment}, not the ${proof.commitment} it states`)
  return { valid: problems.length === 0, problems, serial, commitment, prizeCents: t.prizeCents }
}
