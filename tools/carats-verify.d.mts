/** Types of the outsiders' verifier (carats-verify.mjs), for the project's tests and scripts only. */
export interface OutsideKeys {
  tiers: Uint8Array
  units: Uint8Array
  extra: Uint8Array
  salts: Uint8Array
}
export interface OutsideUnit {
  unit: number
  tier: number
  prizeCents: number
  winning: number[]
  numbers: number[]
  amountsCents: number[]
  matches: number
  record: Uint8Array
  extraSlices: number
}
export interface ProofResult {
  valid: boolean
  problems: string[]
  serial: string
  commitment: string | null
}
export function keys(secret: Uint8Array, emission: number, block: number): OutsideKeys
export function KS(key: Uint8Array, counter: number, length: number): Uint8Array
export function tierTable(def: unknown, key: Uint8Array): Uint8Array
export function makeUnit(def: unknown, keys: OutsideKeys, tier: number, unit: number, slice: Uint8Array): OutsideUnit
export function verifyProof(proof: unknown): ProofResult
export function checkVectors(vectors: unknown, opts?: { wholeBlocks?: boolean }): string[]
export interface BundleProblem {
  code: string
  count: number
  examples: string[]
}
export interface BundleBlockResult {
  block: number
  status: string
  seeding: string
  commitment: string | null
  derivedCommitment: string | null
  sales: { rows: number; winning: number; prizeCents: number } | null
  ms: number
  problems: BundleProblem[]
}
export interface BundleResult {
  holds: boolean
  emission: { number: number; code: string; status: string }
  problems: BundleProblem[]
  blocks: BundleBlockResult[]
}
export interface OutsideVerification {
  sound: boolean
  problems: string[]
  units: number
  merkleRoot: string
  commitment: string
}
export function readDefinition(json: unknown): { def: unknown; text: string; digest: Uint8Array }
export function verifyBlock(
  def: unknown,
  digest: Uint8Array,
  secret: Uint8Array,
  emission: number,
  block: number,
  version: number,
): OutsideVerification
export function verifyBlockThreaded(
  def: unknown,
  digest: Uint8Array,
  secret: Uint8Array,
  emission: number,
  block: number,
  version: number,
  opts?: { threads?: number; onProgress?: (done: number, total: number) => void },
): Promise<OutsideVerification>
