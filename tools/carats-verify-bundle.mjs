/**
 * The outsiders' check of a publication bundle (game-core/DERIVATION.md §11), for
 * carats-verify.mjs `bundle <dir>`. No dependency but node:crypto and node:fs; the derivation
 * itself is carats-verify.mjs's. Keep the two files together.
 */
import { createHash, createHmac } from 'node:crypto'
import { closeSync, openSync, readFileSync, readSync } from 'node:fs'
import { join } from 'node:path'
import { canonical, hex, progressLine, readDefinition, serialOf, unhex, verifyBlockThreaded } from './carats-verify.mjs'

export const BUNDLE_FORMAT = 'carats-publication/1'
export const SALES_HEADER = 'serial,soldAt,prizeCents'
const SALES_ROW = /^(\d{4})-(\d{3})-(\d{7})-\d,(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z),(0|[1-9]\d*)$/
/** Examples kept of each kind of problem in a block (every occurrence is counted). */
const EXAMPLES = 3

/** Input that cannot be read at all (exit 2), as opposed to a bundle that does not hold (exit 1). */
export class UnreadableBundle extends Error {}

/** Hex to bytes, or the input is unreadable. */
function bytesOf(what, h) {
  try {
    return unhex(h)
  } catch (e) {
    throw new UnreadableBundle(`${what}: ${e.message}`)
  }
}

const sha256hex = (bytes) => createHash('sha256').update(bytes).digest('hex')
const u16 = (n) => Buffer.of(n >>> 8, n & 255)

/** S = HMAC(A || C, ascii("CARATS/v1/secret") || u16(e) || u16(b)) (DERIVATION.md §1.1). */
export function secretFromShares(serverShare, custodianShare, e, b) {
  return new Uint8Array(
    createHmac('sha256', Buffer.concat([serverShare, custodianShare]))
      .update(Buffer.concat([Buffer.from('CARATS/v1/secret'), u16(e), u16(b)]))
      .digest(),
  )
}

/** Problems by kind: each counted, the first few kept as examples. */
class Problems {
  constructor() {
    this.byCode = new Map()
  }
  add(code, message) {
    const p = this.byCode.get(code) ?? { code, count: 0, examples: [] }
    p.count++
    if (p.examples.length < EXAMPLES) p.examples.push(message)
    this.byCode.set(code, p)
  }
  list() {
    return [...this.byCode.values()]
  }
}

function readBundle(dir) {
  let text
  try {
    text = readFileSync(join(dir, 'bundle.json'), 'utf8')
  } catch (e) {
    throw new UnreadableBundle(`cannot read ${join(dir, 'bundle.json')}: ${e.code ?? e.message}`)
  }
  let bundle
  try {
    bundle = JSON.parse(text)
  } catch (e) {
    throw new UnreadableBundle(`bundle.json is not JSON: ${e.message}`)
  }
  if (bundle?.format !== BUNDLE_FORMAT)
    throw new UnreadableBundle(
      `bundle.json is not a ${BUNDLE_FORMAT} bundle (format ${JSON.stringify(bundle?.format)})`,
    )
  if (
    !Number.isInteger(bundle.emission?.number) ||
    !Array.isArray(bundle.blocks) ||
    bundle.blocks.some((b) => !Number.isInteger(b?.block))
  ) {
    throw new UnreadableBundle('bundle.json lacks emission.number or a list of blocks with their numbers')
  }
  return bundle
}

/** The definition from its canonical bytes; the object shown beside them must say the same. */
function checkDefinition(bundle, problems) {
  const text = Buffer.from(bytesOf('definitionCanonicalHex', bundle.definitionCanonicalHex)).toString('utf8')
  let read
  try {
    read = readDefinition(text)
  } catch (e) {
    throw new UnreadableBundle(`the definition bytes are not JSON: ${e.message}`)
  }
  const { def, digest } = read
  if (canonical(def) !== text)
    problems.add('definition-not-canonical', 'the definition bytes are not canonical JSON (§6)')
  if (text !== bundle.definition?.canonicalDefinition)
    problems.add('definition-text', 'definition.canonicalDefinition is not the text of definitionCanonicalHex')
  if (hex(digest) !== bundle.definition?.definitionDigest)
    problems.add(
      'definition-digest',
      `the definition bytes hash to ${hex(digest)}, the bundle states ${bundle.definition?.definitionDigest}`,
    )
  for (const [field, value] of Object.entries(def)) {
    if (canonical(value) !== canonical(bundle.definition?.[field]))
      problems.add('definition-fields', `definition.${field} differs from the canonical bytes`)
  }
  return { def, digest }
}

/** Both shares, each hashing to the hash recorded at the ceremony; null without a ceremony. */
function checkCeremony(ceremony, problems) {
  if (ceremony === null || ceremony === undefined) return null
  const share = (name) => {
    const s = bytesOf(`ceremony.${name}Share`, ceremony[`${name}Share`])
    if (s.length !== 32) problems.add('share-format', `the ${name} share is ${s.length} bytes, a share is 32`)
    if (sha256hex(s) !== ceremony[`${name}Hash`])
      problems.add(
        'share-hash',
        `SHA-256 of the ${name} share is ${sha256hex(s)}, the ceremony recorded ${ceremony[`${name}Hash`]}`,
      )
    return s
  }
  return { server: share('server'), custodian: share('custodian') }
}

/** Reads a file line by line in pieces of 1 MB, hashing its bytes as they come. */
function* lines(path, hash) {
  let fd
  try {
    fd = openSync(path, 'r')
  } catch (e) {
    throw new UnreadableBundle(`cannot read ${path}: ${e.code ?? e.message}`)
  }
  try {
    const buf = Buffer.alloc(1 << 20)
    let rest = ''
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) {
      hash.update(buf.subarray(0, n))
      const parts = (rest + buf.toString('latin1', 0, n)).split('\n')
      rest = parts.pop()
      yield* parts
    }
    if (rest !== '') yield { unterminated: rest }
  } finally {
    closeSync(fd)
  }
}

/** Every row of a block's sales file against the block re-derived: `prizeOf(u)` is unit u's prize. */
function checkSales(dir, blk, e, def, prizeOf, problems) {
  const hash = createHash('sha256')
  const seen = new Uint8Array(def.blockSize)
  const totals = { rows: 0, winning: 0, prizeCents: 0 }
  let row = 0
  let last = -1
  for (const line of lines(join(dir, blk.salesFile), hash)) {
    if (row++ === 0) {
      if (line !== SALES_HEADER) problems.add('sales-header', `the first line is not ${SALES_HEADER}`)
      continue
    }
    if (typeof line === 'object') {
      problems.add(
        'sales-cut',
        `line ${row} ends without a line break: the file is cut (${JSON.stringify(line.unterminated.slice(0, 40))})`,
      )
      break
    }
    const m = SALES_ROW.exec(line)
    if (!m) {
      problems.add('sales-line', `line ${row} is not serial,soldAt,prizeCents: ${JSON.stringify(line.slice(0, 60))}`)
      continue
    }
    const [serial] = line.split(',', 1)
    const u = Number(m[3])
    if (Number(m[1]) !== e || Number(m[2]) !== blk.block) {
      problems.add('sales-serial', `line ${row}: ${serial} is not a unit of block ${e}/${blk.block}`)
      continue
    }
    if (u >= def.blockSize) {
      problems.add('sales-serial', `line ${row}: ${serial} is beyond the block's ${def.blockSize} units`)
      continue
    }
    if (serialOf(e, blk.block, u) !== serial) {
      problems.add('sales-serial', `line ${row}: ${serial} has a wrong check digit (${serialOf(e, blk.block, u)})`)
      continue
    }
    if (seen[u]) {
      problems.add('sales-duplicate', `line ${row}: ${serial} is sold twice`)
      continue
    }
    if (u < last) problems.add('sales-order', `line ${row}: ${serial} comes after a later unit`)
    seen[u] = 1
    last = Math.max(last, u)
    const ms = Date.parse(m[4])
    if (Number.isNaN(ms) || new Date(ms).toISOString() !== m[4])
      problems.add('sales-time', `line ${row}: ${m[4]} is not a time`)
    const stated = Number(m[5])
    const prize = prizeOf(u)
    if (stated !== prize)
      problems.add('prize', `line ${row}: ${serial} is said to pay ${stated} cents, the unit pays ${prize}`)
    totals.rows++
    if (prize > 0) {
      totals.winning++
      totals.prizeCents += prize
    }
  }
  if (row === 0) problems.add('sales-header', 'the sales file is empty')
  if (totals.rows !== blk.unitsSold)
    problems.add('sales-rows', `${totals.rows} sold units in the file, the bundle says ${blk.unitsSold}`)
  const digest = hash.digest('hex')
  if (digest !== blk.salesSha256)
    problems.add('sales-sha256', `${blk.salesFile} hashes to ${digest}, the bundle states ${blk.salesSha256}`)
  return totals
}

const safeName = (name) => typeof name === 'string' && /^[\w.-]+$/.test(name) && name !== '.' && name !== '..'

/** One block: its secret (from the shares, for two-person seeding), its units and commitment, its sales. */
async function checkBlock(dir, bundle, defn, shares, blk, { threads, progress }) {
  const problems = new Problems()
  const e = bundle.emission.number
  const out = {
    block: blk.block,
    status: blk.status,
    seeding: blk.seeding,
    commitment: blk.commitment,
    derivedCommitment: null,
    sales: null,
    ms: 0,
  }
  if (blk.secret === null) {
    if (blk.status !== 'pending')
      problems.add('secret-missing', `block ${blk.block} is ${blk.status} but the bundle gives no secret`)
    if (blk.unitsSold !== 0 || blk.salesFile !== null)
      problems.add('sales-rows', `block ${blk.block} was never generated, yet sales are listed`)
    return { ...out, problems: problems.list() }
  }
  const t0 = Date.now()
  const secret = bytesOf(`block ${blk.block}'s secret`, blk.secret)
  if (secret.length !== 32) throw new UnreadableBundle(`block ${blk.block}: a secret is 32 bytes, not ${secret.length}`)
  if (blk.seeding === 'two-person') {
    if (!shares)
      problems.add(
        'no-ceremony',
        `block ${blk.block} is said to be seeded by two persons, but the bundle has no ceremony`,
      )
    else if (hex(secretFromShares(shares.server, shares.custodian, e, blk.block)) !== blk.secret)
      problems.add(
        'secret-from-shares',
        `block ${blk.block}'s secret is not HMAC(A || C, "CARATS/v1/secret" || e || b) of the ceremony's shares`,
      )
  }
  const onProgress = progress?.(`block ${blk.block}`)
  const r = await verifyBlockThreaded(defn.def, defn.digest, secret, e, blk.block, blk.commitmentVersion, {
    threads,
    onProgress,
  })
  for (const p of r.problems) problems.add('unsound', p)
  out.derivedCommitment = r.commitment
  if (r.commitment !== blk.commitment)
    problems.add('commitment', `the secret gives commitment ${r.commitment}, the bundle states ${blk.commitment}`)
  if (!safeName(blk.salesFile))
    throw new UnreadableBundle(`block ${blk.block}: salesFile ${JSON.stringify(blk.salesFile)} is not a file name`)
  const prizeOf = (u) => (r.tiers[u] === 255 ? 0 : defn.def.tiers[r.tiers[u]].amountCents)
  out.sales = checkSales(dir, blk, e, defn.def, prizeOf, problems)
  return { ...out, ms: Date.now() - t0, problems: problems.list() }
}

/**
 * Checks a bundle folder completely, offline: { holds, problems (the bundle's), blocks (each with
 * its own problems) }. Throws UnreadableBundle when the input cannot be read. Each block is
 * re-derived on `threads` threads (all the cores by default); `progress(label)`, when given,
 * makes the function told of each block's progress.
 */
export async function verifyBundle(dir, { onBlock, threads, progress } = {}) {
  const bundle = readBundle(dir)
  const problems = new Problems()
  const defn = checkDefinition(bundle, problems)
  const shares = checkCeremony(bundle.ceremony, problems)
  const blocks = []
  for (const blk of bundle.blocks ?? []) {
    const r = await checkBlock(dir, bundle, defn, shares, blk, { threads, progress })
    onBlock?.(r)
    blocks.push(r)
  }
  if (blocks.length === 0) problems.add('no-blocks', 'the bundle lists no block')
  const holds = problems.list().length === 0 && blocks.every((b) => b.problems.length === 0)
  return { holds, emission: bundle.emission, ceremony: bundle.ceremony ?? null, problems: problems.list(), blocks }
}

const describe = (ps) => ps.map((p) => `${p.code} ×${p.count}: ${p.examples.join('; ')}`).join('\n    ')

/** One block's summary line, for people. */
export function blockLine(b) {
  const seeding = b.seeding === 'two-person' ? 'two-person seeding' : 'single control (one person drew its secret)'
  if (b.derivedCommitment === null && b.problems.length === 0)
    return `block ${b.block}: never generated, nothing to check`
  const sales = b.sales
    ? `${b.sales.rows} sold units, ${b.sales.winning} winning, ${b.sales.prizeCents} cents of prizes`
    : 'no sales checked'
  const head = `block ${b.block} (${seeding}): commitment ${b.derivedCommitment}; ${sales}; ${(b.ms / 1000).toFixed(1)} s`
  return b.problems.length ? `${head}\n  FAILS:\n    ${describe(b.problems)}` : `${head}; holds`
}

/** The command: prints each block as it is checked, then the verdict. Returns the exit code. */
export async function bundleCommand(dir, print = console.log, { threads } = {}) {
  try {
    const r = await verifyBundle(dir, { onBlock: (b) => print(blockLine(b)), threads, progress: progressLine })
    if (r.problems.length) print(`the bundle FAILS:\n    ${describe(r.problems)}`)
    const e = r.emission
    print(
      r.holds
        ? `emission ${e.number} (${e.code}, ${e.status}): the bundle holds. Compare each block's commitment above with the emission's certificate.`
        : `emission ${e.number} (${e.code}): the bundle does NOT hold (see FAILS above)`,
    )
    return r.holds ? 0 : 1
  } catch (err) {
    if (!(err instanceof UnreadableBundle)) throw err
    print(`cannot check ${dir}: ${err.message}`)
    return 2
  }
}

// Run alone, this file would check nothing: say so, and how to check a bundle (exit 2).
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  console.error(
    'carats-verify-bundle.mjs is a part of carats-verify.mjs and checks nothing alone: run\n' +
      '  node carats-verify.mjs bundle <dir>\n' +
      '(both files in one folder)',
  )
  process.exitCode = 2
}
