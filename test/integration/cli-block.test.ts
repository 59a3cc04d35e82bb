import { beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { runCli } from '../../electron/cli/main'
import type { CliIo } from '../../electron/cli/io'
import { CARATS } from '../../game-core/carats'
import { BlockDeriver } from '../../game-core/block'
import { nodePrimitives } from '../../electron/crypto/node-primitives'
import { fromHex } from '../../game-core/primitives'

async function run(...argv: string[]) {
  let out = ''
  let err = ''
  const io: CliIo = {
    out: (t) => {
      out += t
    },
    err: (t) => {
      err += t
    },
    progress: () => {},
  }
  const code = await runCli(argv, io)
  return { code, out, err }
}

const secret = '5a'.repeat(32)

describe('carats rules', () => {
  it('prints the definition and the figures derived from it as one JSON document', async () => {
    const { code, out } = await run('rules', '--json')
    expect(code).toBe(0)
    const r = JSON.parse(out)
    expect(r.unitPriceCents).toBe(500)
    expect(r.blockSize).toBe(8_016_000)
    expect(r.numbers).toHaveLength(46)
    expect(r.numbers).not.toContain(5)
    expect(r.tiers).toContainEqual({ amountCents: 50_000_000, count: 2, printedTotalCents: 100_000_000 })
    // the whole definition the commitment covers: weights and the order of each list, its canonical bytes and digest
    expect(r.compositions).toEqual(CARATS.compositions)
    expect(r.decoyWeights).toEqual(CARATS.decoyWeights)
    expect(JSON.parse(r.canonicalDefinition)).toEqual(JSON.parse(JSON.stringify(CARATS)))
    expect(r.definitionDigest).toBe(createHash('sha256').update(r.canonicalDefinition).digest('hex'))
    expect(r.prizesPerBlock).toBe(2_055_464)
    expect(r.prizeTotalCents).toBe(2_885_750_000)
    expect(r.losingUnits).toBe(5_960_536)
    expect(r.payoutRatio).toBeCloseTo(0.7199975, 7)
  })
})

describe('carats block', () => {
  let stats: {
    units: number
    tiers: { amountCents: number; count: number }[]
    losingUnits: number
    prizeTotalCents: number
    commitment: string
  }

  beforeAll(async () => {
    const { code, out } = await run('block', 'stats', '--secret', secret, '--emission', '2', '--block', '5', '--json')
    expect(code).toBe(0)
    stats = JSON.parse(out)
  }, 180_000)

  it('stats regenerates the whole block with exactly the prize table', () => {
    expect(stats.units).toBe(8_016_000)
    expect(stats.tiers).toEqual(CARATS.tiers.map((t) => ({ amountCents: t.amountCents, count: t.count })))
    expect(stats.losingUnits).toBe(5_960_536)
    expect(stats.prizeTotalCents).toBe(2_885_750_000)
    expect(stats.commitment).toMatch(/^[0-9a-f]{64}$/)
  })

  it('verify accepts the block against its commitment and refuses another', async () => {
    const ok = await run(
      'block',
      'verify',
      '--secret',
      secret,
      '--emission',
      '2',
      '--block',
      '5',
      '--commitment',
      stats.commitment,
    )
    expect(ok.code).toBe(0)
    expect(ok.out).toMatch(
      /^block 0002-005 is sound: 8,016,000 units in [\d.]+ s \([\d,]+ units\/s\), the commitment matches\n$/,
    )

    // the same secret under another block number is another block
    const other = await run(
      'block',
      'verify',
      '--secret',
      secret,
      '--emission',
      '2',
      '--block',
      '6',
      '--commitment',
      stats.commitment,
    )
    expect(other.code).toBe(1)
    expect(other.err).toMatch(/FAILS verification: the commitment does not match/)
    expect(other.err.trim().split('\n')).toHaveLength(1)
  }, 180_000)

  it('export prints one JSON line per unit, the same units the core derives', async () => {
    const { code, out } = await run(
      'block',
      'export',
      '--secret',
      secret,
      '--emission',
      '2',
      '--block',
      '5',
      '--from',
      '8015990',
      '--count',
      '10',
    )
    expect(code).toBe(0)
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines).toHaveLength(10)
    const deriver = new BlockDeriver(CARATS, nodePrimitives, { emission: 2, block: 5, secret: fromHex(secret) })
    lines.forEach((l, i) => {
      const t = deriver.ticket(8_015_990 + i)
      expect(l).toEqual({
        serial: t.serial,
        index: t.unit,
        prizeCents: t.prizeCents,
        winning: t.winning,
        numbers: t.numbers,
        amountsCents: t.amountsCents,
      })
    })
    expect(lines[9].serial).toMatch(/^0002-005-8015999-\d$/)
  })

  it('says in one line what is wrong with its arguments', async () => {
    for (const [argv, message] of [
      [['block', 'stats', '--secret', 'abc'], /--secret must be 64 hexadecimal digits/],
      [['block', 'stats'], /--secret <64 hex digits> is required/],
      [
        ['block', 'export', '--secret', secret, '--from', '8016000', '--count', '1'],
        /--from must be from 0 to 8015999/,
      ],
      [['block', 'export', '--secret', secret, '--block', '1000', '--count', '1'], /--block must be from 1 to 999/],
      [['block', 'verify', '--secret', secret, '--commitment', 'xyz'], /--commitment must be 64 hexadecimal digits/],
      [['block', 'frobnicate'], /unknown command/],
    ] as const) {
      const r = await run(...argv)
      expect(r.code, argv.join(' ')).toBeGreaterThan(0)
      expect(r.err).toMatch(message)
      expect(r.err.trim().split('\n')).toHaveLength(1)
      expect(r.out).toBe('')
    }
  })

  it('runs as a command with exit codes (npm run --silent carats -- …)', () => {
    const good = spawnSync('npm', ['run', '--silent', 'carats', '--', 'rules', '--json'], { encoding: 'utf8' })
    expect(good.status).toBe(0)
    expect(JSON.parse(good.stdout).blockSize).toBe(8_016_000)
    const bad = spawnSync('npm', ['run', '--silent', 'carats', '--', 'block', 'stats', '--secret', '12'], {
      encoding: 'utf8',
    })
    expect(bad.status).not.toBe(0)
    expect(bad.stderr.trim()).toMatch(/^carats block stats: --secret must be 64 hexadecimal digits/)
  }, 60_000)
})
