/** `rules` and `block …`: the game definition, and whole blocks made and verified from a secret. */
import { parseArgs } from 'node:util'
import { CARATS } from '../../game-core/carats'
import { BlockDeriver, decodeRecord } from '../../game-core/block'
import { fromHex } from '../../game-core/primitives'
import { LATEST_COMMITMENT_VERSION, type CommitmentVersion } from '../../game-core/unit-commitment'
import { nodePrimitives } from '../crypto/node-primitives'
import { definitionJson, verifyBlockInWorkers } from '../services/emissions'
import { UsageError, type Command, type CommandContext } from './io'

const def = CARATS

/** The whole definition (every field the commitment's digest covers, DERIVATION.md §6) and the figures derived from it. */
const rulesJson = () => definitionJson(def)

const eur = (cents: number) => `${(cents / 100).toLocaleString('fr-FR')} €`
const int = (n: number) => n.toLocaleString('en-US')

const rules: Command = async ({ json, io }) => {
  const r = rulesJson()
  if (json) {
    io.out(JSON.stringify(r) + '\n')
    return 0
  }
  io.out(`${r.name}: ${eur(r.unitPriceCents)} a unit, blocks of ${int(r.blockSize)} units\n`)
  io.out(`numbers: ${r.numbers.join(' ')}\n`)
  for (const t of r.tiers)
    io.out(`  ${int(t.count).padStart(10)} × ${eur(t.amountCents).padStart(11)} = ${eur(t.amountCents * t.count)}\n`)
  io.out(
    `  ${int(r.prizesPerBlock).padStart(10)} prizes, ${eur(r.prizeTotalCents)} in all; ${int(r.losingUnits)} losing units\n`,
  )
  io.out(`payout ${(r.payoutRatio * 100).toFixed(5)} %, odds 1 in ${r.oddsOneIn.toFixed(2)}\n`)
  return 0
}

function blockArgs(ctx: CommandContext, extra: Record<string, { type: 'string' }> = {}) {
  const { values } = parseArgs({
    args: ctx.args,
    options: {
      secret: { type: 'string' },
      emission: { type: 'string', default: '1' },
      block: { type: 'string', default: '1' },
      'commitment-version': { type: 'string', default: String(LATEST_COMMITMENT_VERSION) },
      ...extra,
    },
    strict: true,
    allowPositionals: false,
  })
  const opts = values as Record<string, string | undefined>
  const secretHex = opts.secret
  if (!secretHex) throw new UsageError('--secret <64 hex digits> is required')
  if (!/^[0-9a-fA-F]{64}$/.test(secretHex))
    throw new UsageError(`--secret must be 64 hexadecimal digits (32 bytes), got ${secretHex.length} characters`)
  const emission = wholeNumber('--emission', opts.emission, 1, 9999)
  const block = wholeNumber('--block', opts.block, 1, 999)
  const commitmentVersion = wholeNumber('--commitment-version', opts['commitment-version'], 1, 2) as CommitmentVersion
  return { values: opts, ref: { emission, block, secret: fromHex(secretHex), commitmentVersion } }
}

function wholeNumber(flag: string, text: string | undefined, min: number, max: number): number {
  if (text === undefined || !/^\d+$/.test(text))
    throw new UsageError(`${flag} must be a whole number, got ${JSON.stringify(text)}`)
  const n = Number(text)
  if (n < min || n > max) throw new UsageError(`${flag} must be from ${min} to ${max}, got ${n}`)
  return n
}

async function regenerate(
  ctx: CommandContext,
  ref: { emission: number; block: number; secret: Uint8Array; commitmentVersion: CommitmentVersion },
) {
  const started = performance.now()
  const v = await verifyBlockInWorkers(def, ref, {
    onProgress: (done, total) =>
      ctx.io.progress(
        `regenerating block: ${((100 * done) / total).toFixed(0)} % (${int(done)} / ${int(total)} units)`,
      ),
  })
  ctx.io.progress('')
  return { v, seconds: (performance.now() - started) / 1000 }
}

const stats: Command = async (ctx) => {
  const { ref } = blockArgs(ctx)
  const { v } = await regenerate(ctx, ref)
  const out = {
    units: v.units,
    tiers: v.tiers.map((t) => ({ amountCents: t.amountCents, count: t.found })),
    losingUnits: v.losingUnits,
    prizeTotalCents: v.prizeTotalCents,
    commitmentVersion: v.commitmentVersion,
    commitment: v.commitment,
  }
  if (ctx.json) ctx.io.out(JSON.stringify(out) + '\n')
  else {
    ctx.io.out(`${int(out.units)} units, ${int(out.losingUnits)} losing\n`)
    for (const t of out.tiers) ctx.io.out(`  ${int(t.count).padStart(10)} × ${eur(t.amountCents)}\n`)
    ctx.io.out(
      `prizes: ${eur(out.prizeTotalCents)}\ncommitment (version ${out.commitmentVersion}): ${out.commitment}\n`,
    )
  }
  return v.sound ? 0 : 1
}

const exportUnits: Command = async (ctx) => {
  const { values, ref } = blockArgs(ctx, { from: { type: 'string' }, count: { type: 'string' } })
  const from = wholeNumber('--from', values.from ?? '0', 0, def.blockSize - 1)
  const count = wholeNumber('--count', values.count, 1, def.blockSize - from)
  const deriver = new BlockDeriver(def, nodePrimitives, ref)
  const rb = deriver.synthesizer.recordBytes
  for (let at = from; at < from + count; at += 4096) {
    const n = Math.min(4096, from + count - at)
    const records = deriver.records(at, n)
    let text = ''
    for (let i = 0; i < n; i++) {
      const t = decodeRecord(def, ref, records, i * rb)
      text +=
        JSON.stringify({
          serial: t.serial,
          index: t.unit,
          prizeCents: t.prizeCents,
          winning: t.winning,
          numbers: t.numbers,
          amountsCents: t.amountsCents,
        }) + '\n'
    }
    await ctx.io.out(text)
  }
  return 0
}

const verify: Command = async (ctx) => {
  const { values, ref } = blockArgs(ctx, { commitment: { type: 'string' } })
  const expected = values.commitment?.toLowerCase()
  if (!expected) throw new UsageError('--commitment <64 hex digits> is required')
  if (!/^[0-9a-f]{64}$/.test(expected)) throw new UsageError('--commitment must be 64 hexadecimal digits')
  const { v, seconds } = await regenerate(ctx, ref)
  const problems = [...v.problems.map((p) => (p.unit >= 0 ? `unit ${p.unit}: ${p.message}` : p.message))]
  if (v.commitment !== expected) {
    const other = ref.commitmentVersion === 2 ? 1 : 2
    problems.unshift(
      `the commitment does not match: the block regenerates to ${v.commitment} under commitment version ${ref.commitmentVersion}, not ${expected} (a block committed under version ${other}: add --commitment-version ${other})`,
    )
  }
  const name = `block ${String(ref.emission).padStart(4, '0')}-${String(ref.block).padStart(3, '0')}`
  const rate = v.units / seconds
  if (ctx.json) {
    ctx.io.out(
      JSON.stringify({
        sound: problems.length === 0,
        units: v.units,
        seconds,
        unitsPerSecond: rate,
        commitmentVersion: v.commitmentVersion,
        commitment: v.commitment,
        problems,
      }) + '\n',
    )
  } else if (problems.length === 0) {
    ctx.io.out(
      `${name} is sound: ${int(v.units)} units in ${seconds.toFixed(2)} s (${int(Math.round(rate))} units/s), the commitment matches\n`,
    )
  } else {
    ctx.io.err(
      `${name} FAILS verification: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : ''}\n`,
    )
  }
  return problems.length === 0 ? 0 : 1
}

export const blockCommands: Record<string, Command> = {
  rules,
  'block stats': stats,
  'block export': exportUnits,
  'block verify': verify,
}
