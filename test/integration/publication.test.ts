/**
 * Publication after the game: `carats emission publish` and its service write a bundle that the
 * outsiders' verifier (tools/carats-verify.mjs bundle) checks offline; a tampered copy fails with
 * the problem named. Small games (10,000 units a block), sold by the simulator.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../electron/cli/main'
import type { CliIo } from '../../electron/cli/io'
import { AppError } from '../../electron/contract/errors'
import { formatSerial } from '../../game-core/serial'
import { unitKey } from '../../electron/ledger/unit-key'
import { secretFromShares, verifyBundle } from '../../tools/carats-verify-bundle.mjs'
import { ledgerArgs } from '../support/ledger-engine'
import { ROOT } from './cli-process'
import {
  AUDITOR,
  copyBundle,
  openPublicationLedger,
  readBundle,
  writeBundle,
  type PublicationLedger,
} from './publication-fixture'

let f: PublicationLedger
let single: number
let twoPerson: number
let open: number
let single_dir: string
let two_dir: string

const verifier = (dir: string) =>
  spawnSync(process.execPath, [join(ROOT, 'tools', 'carats-verify.mjs'), 'bundle', dir], {
    encoding: 'utf8',
    timeout: 60_000,
  })
const codes = async (dir: string) => {
  const r = await verifyBundle(dir)
  return [...r.problems, ...r.blocks.flatMap((b) => b.problems)].map((p) => p.code).sort()
}
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

beforeAll(async () => {
  f = openPublicationLedger()
  // block 1 sold out, block 2 partly
  single = await f.closedEmission({ blocks: 2, sales: 12_000 })
  twoPerson = await f.closedEmission({ blocks: 1, sales: 700, twoPerson: true })
  open = f.emissions.create({ name: 'tester', role: 'admin' }, { blocks: 1, demo: true }).emission
  single_dir = join(f.dir, 'pub-single')
  two_dir = join(f.dir, 'pub-two')
  f.publication.publish(AUDITOR, single, single_dir)
  f.publication.publish(AUDITOR, twoPerson, two_dir)
}, 120_000)
afterAll(() => f.close())

describe('publishing an emission', () => {
  it('refuses an emission whose game is not over, and writes nothing', () => {
    const dir = join(f.dir, 'pub-open')
    const err = (() => {
      try {
        f.publication.publish(AUDITOR, open, dir)
      } catch (e) {
        return e
      }
    })() as AppError
    expect(err).toBeInstanceOf(AppError)
    expect(err.extras.reason).toMatchObject({ key: 'PUBLISH_NOT_OVER', params: { emission: open, status: 'created' } })
    expect(existsSync(dir)).toBe(false)
    expect(f.emissions.summary(open).publishedAt).toBeNull()
  })

  it('refuses a folder that is not empty', () => {
    const dir = join(f.dir, 'busy')
    mkdirSync(dir)
    writeFileSync(join(dir, 'notes.txt'), 'mine')
    expect(() => f.publication.publish(AUDITOR, single, dir)).toThrow(/not empty/)
    expect(readdirSync(dir)).toEqual(['notes.txt'])
  })

  it('writes the bundle and one sales file per block, every sold unit in unit order with its recorded prize', () => {
    expect(readdirSync(single_dir).sort()).toEqual(['bundle.json', `sales-${single}-1.csv`, `sales-${single}-2.csv`])
    const b = readBundle(single_dir)
    const row = f.catalog.emission(single)
    expect(b).toMatchObject({
      format: 'carats-publication/1',
      ceremony: null,
      publishedBy: AUDITOR.name,
      emission: { number: single, code: row.code, status: 'closed', demo: true },
    })
    expect(b.definition.canonicalDefinition).toBe(row.definition)
    expect(Buffer.from(b.definitionCanonicalHex, 'hex').toString('utf8')).toBe(row.definition)
    expect(b.definition.definitionDigest).toBe(row.definition_digest)
    expect(b.blocks.map((x: { unitsSold: number; seeding: string }) => [x.unitsSold, x.seeding])).toEqual([
      [10_000, 'single'],
      [2_000, 'single'],
    ])
    const lines = readFileSync(join(single_dir, `sales-${single}-2.csv`), 'utf8').split('\n')
    expect(lines[0]).toBe('serial,soldAt,prizeCents')
    expect(lines).toHaveLength(2_002)
    expect(lines.at(-1)).toBe('')
    const sale = f.db
      .prepare('SELECT sold_at, prize_cents FROM sales WHERE unit_key = ?')
      .get(unitKey(single, 2, 1_999)) as { sold_at: number; prize_cents: number }
    expect(lines[2_000]).toBe(
      `${formatSerial({ emission: single, block: 2, unit: 1_999 }, 10_000)},${new Date(sale.sold_at).toISOString()},${sale.prize_cents}`,
    )
    expect(b.blocks[1].salesSha256).toBe(sha256(join(single_dir, `sales-${single}-2.csv`)))
  })

  it('records when and by whom, and audits the files’ hashes', () => {
    const s = f.emissions.summary(single)
    expect(s.publishedBy).toBe(AUDITOR.name)
    expect(s.publishedAt).toBe(readBundle(single_dir).publishedAt)
    const details = JSON.parse(
      f.db
        .prepare("SELECT details FROM audit WHERE action = 'emission.publish' AND object = ?")
        .pluck()
        .get(`emission:${single}`) as string,
    )
    expect(details).toMatchObject({
      dir: 'pub-single',
      blocks: [
        { block: 1, unitsSold: 10_000 },
        { block: 2, unitsSold: 2_000 },
      ],
    })
    expect(details.files['bundle.json']).toBe(sha256(join(single_dir, 'bundle.json')))
  })

  it('publishes again into another folder, keeping the first publication’s time', async () => {
    const first = f.emissions.summary(single).publishedAt
    await new Promise((r) => setTimeout(r, 5))
    const again = f.publication.publish({ name: 'someone-else', role: 'auditor' }, single, join(f.dir, 'pub-again'))
    expect(again.firstPublishedAt).toBe(first)
    expect(f.emissions.summary(single)).toMatchObject({ publishedAt: first, publishedBy: AUDITOR.name })
    // the same content: the game is over
    expect(sha256(join(f.dir, 'pub-again', `sales-${single}-1.csv`))).toBe(
      sha256(join(single_dir, `sales-${single}-1.csv`)),
    )
  })

  it('publishes a withdrawn emission whose blocks were never generated: nothing to check, and it holds', () => {
    const e = f.emissions.create({ name: 'tester', role: 'admin' }, { blocks: 2, demo: true }).emission
    f.emissions.withdraw({ name: 'tester', role: 'admin' }, e, 'printing error')
    const dir = join(f.dir, 'pub-withdrawn')
    f.publication.publish(AUDITOR, e, dir)
    expect(readdirSync(dir)).toEqual(['bundle.json'])
    expect(readBundle(dir)).toMatchObject({
      emission: { status: 'withdrawn', withdrawnReason: 'printing error' },
      blocks: [{ status: 'pending', secret: null, salesFile: null }, { status: 'pending' }],
    })
    const r = verifier(dir)
    expect(r.stdout).toMatch(/block 1: never generated/)
    expect(r.status).toBe(0)
  })

  it('a two-person emission carries its ceremony and both shares', () => {
    const b = readBundle(two_dir)
    const c = f.ceremony.get(twoPerson)!
    expect(b.ceremony).toMatchObject({
      startedBy: 'otto',
      custodian: AUDITOR.name,
      source: 'random',
      serverHash: c.serverHash,
      custodianShare: 'c0'.repeat(32),
      custodianHash: c.custodianHash,
    })
    expect(b.blocks[0]).toMatchObject({
      seeding: 'two-person',
      unitsSold: 700,
      commitment: f.catalog.block(twoPerson, 1).commitment,
    })
  })
})

describe('the outsiders’ verifier on a bundle', () => {
  it('passes both bundles, as a separate process', () => {
    for (const dir of [single_dir, two_dir]) {
      const r = verifier(dir)
      expect(r.stdout).toMatch(/the bundle holds/)
      expect(r.status).toBe(0)
    }
    expect(verifier(single_dir).stdout).toMatch(/block 1 \(single control[^\n]*10000 sold units/)
  })

  it('makes a secret from two shares as the ceremony vectors say (DERIVATION.md §1.1)', () => {
    const v = JSON.parse(readFileSync(join(ROOT, 'game-core', 'vectors', 'derivation.json'), 'utf8')).ceremony
    const [a, c] = [Buffer.from(v.serverShare, 'hex'), Buffer.from(v.custodianShare, 'hex')]
    for (const s of v.secrets)
      expect(Buffer.from(secretFromShares(a, c, s.emission, s.block)).toString('hex')).toBe(s.secret)
  })

  it('says exit 2 for a folder without a bundle', () => {
    expect(verifier(join(f.dir, 'nowhere')).status).toBe(2)
  })

  /** Changes a sales file, and its hash in the bundle so that only the check named can catch it. */
  function editSales(dir: string, block: number, edit: (lines: string[]) => string[]) {
    const b = readBundle(dir)
    const path = join(dir, b.blocks[block - 1].salesFile)
    writeFileSync(path, edit(readFileSync(path, 'utf8').split('\n')).join('\n'))
    b.blocks[block - 1].salesSha256 = sha256(path)
    writeBundle(dir, b)
  }

  /** Cuts block 2's sales file near 30,000 bytes, `from` bytes after a line break (-3: mid-line). */
  function cutSales(dir: string, from: number) {
    const path = join(dir, `sales-${single}-2.csv`)
    const bytes = readFileSync(path)
    writeFileSync(path, bytes.subarray(0, bytes.indexOf(0x0a, 30_000) + from))
  }

  const tampered: [string, (dir: string) => void, string[]][] = [
    [
      'a prize changed in a sales file',
      (d) =>
        editSales(d, 2, (l) => {
          const c = l[5].split(',')
          c[2] = String(Number(c[2]) + 500)
          l[5] = c.join(',')
          return l
        }),
      ['prize'],
    ],
    ['a row duplicated', (d) => editSales(d, 2, (l) => [...l.slice(0, 10), l[9], ...l.slice(10)]), ['sales-duplicate']],
    ['a sales file cut mid-line (its hash left)', (d) => cutSales(d, -3), ['sales-cut', 'sales-rows', 'sales-sha256']],
    ['a sales file cut after a whole line (its hash left)', (d) => cutSales(d, 1), ['sales-rows', 'sales-sha256']],
    [
      'a sales file changed, its hash left',
      (d) => appendFileSync(join(d, `sales-${single}-1.csv`), 'x\n'),
      ['sales-line', 'sales-sha256'],
    ],
    [
      'a commitment changed',
      (d) => {
        const b = readBundle(d)
        b.blocks[0].commitment = 'ab'.repeat(32)
        writeBundle(d, b)
      },
      ['commitment'],
    ],
    [
      'a secret changed',
      (d) => {
        const b = readBundle(d)
        b.blocks[1].secret = 'ab'.repeat(32)
        writeBundle(d, b)
      },
      ['commitment', 'prize'],
    ],
    [
      'the definition changed',
      (d) => {
        const b = readBundle(d)
        b.definition.tiers[0].count += 1
        writeBundle(d, b)
      },
      ['definition-fields'],
    ],
  ]
  for (const [what, tamper, expected] of tampered) {
    it(`fails when ${what}: ${expected.join(', ')}`, async () => {
      const copy = copyBundle(single_dir)
      try {
        tamper(copy)
        expect([...new Set(await codes(copy))]).toEqual(expected)
      } finally {
        rmSync(copy, { recursive: true, force: true })
      }
    })
  }

  it('fails, exit 1, when a share changed, or a two-person secret is not made from the shares', async () => {
    const copy = copyBundle(two_dir)
    try {
      const b = readBundle(copy)
      b.ceremony.custodianShare = 'c1'.repeat(32)
      writeBundle(copy, b)
      expect([...new Set(await codes(copy))]).toEqual(['secret-from-shares', 'share-hash'])
      b.ceremony.custodianShare = 'c0'.repeat(32)
      b.blocks[0].secret = 'ab'.repeat(32)
      writeBundle(copy, b)
      expect([...new Set(await codes(copy))]).toEqual(['commitment', 'prize', 'secret-from-shares'])
      const r = verifier(copy)
      expect(r.status).toBe(1)
      expect(r.stdout).toMatch(/secret-from-shares ×1/)
    } finally {
      rmSync(copy, { recursive: true, force: true })
    }
  })
})

describe('the command line', () => {
  async function carats(...argv: string[]) {
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
    const code = await runCli([...ledgerArgs({ location: f.path, keyFile: f.keyFile }), ...argv], io)
    return { code, out, err }
  }

  it('publishes, refuses an open emission, and shows who published', async () => {
    const refused = await carats('emission', 'publish', String(open), '--out', join(f.dir, 'cli-open'))
    expect(refused.code).toBe(1)
    expect(refused.err).toMatch(/is created: it is published only once the game is over/)
    const dir = join(f.dir, 'cli-two')
    const done = await carats('emission', 'publish', String(twoPerson), '--out', dir)
    expect(done.code).toBe(0)
    expect(done.out).toMatch(/block 1: two-person seeding, 700 sold units/)
    expect(verifier(dir).status).toBe(0)
    const show = await carats('emission', 'show', String(twoPerson))
    expect(show.out).toContain(`published at ${f.emissions.summary(twoPerson).publishedAt} by ${AUDITOR.name}`)
    const json = JSON.parse((await carats('--json', 'emission', 'show', String(open))).out)
    expect(json.emission).toMatchObject({ emission: open, publishedAt: null, publishedBy: null })
  })

  it('explains itself', async () => {
    const r = await carats('emission', 'publish', '--help')
    expect(r.out).toMatch(/meant for an auditor/)
    expect((await carats('help')).out).toMatch(/emission publish <E> --out <dir> +after the game/)
    expect((await carats('emission', 'publish', String(single))).err).toMatch(/--out <dir> is required/)
  })
})
