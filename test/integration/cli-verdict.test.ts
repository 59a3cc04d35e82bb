/**
 * `carats emission verify` and `carats emission verdict` as a user runs them (real processes,
 * the launcher electron/cli/carats.mjs) on a copy of the template ledger: a real block re-verified, its
 * verdict printed and kept; then its recorded commitment altered, found unsound (exit 1); and
 * every verdict still there to print.
 */
import { spawnSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ledgerArgs, type TestLedgerLocation } from '../support/ledger-engine'
import { withTestLedger } from '../support/test-ledgers'
import { caratsArgv, caratsEnv } from './cli-process'
import { forgedHex } from '../support/forge'
import { openBackend } from '../../electron/app/backend'
import { openEmissionLedger, tempDir } from './ledger-fixture'

const root = join(__dirname, '../..')
const dir = tempDir('cli-verdict')
/** The template's copy in dir, where the command line works (set before the tests). */
let ledger: TestLedgerLocation
const T = 180_000

function carats(args: string[]) {
  const r = spawnSync(process.execPath, caratsArgv([...ledgerArgs(ledger), ...args]), {
    cwd: root,
    encoding: 'utf8',
    env: caratsEnv(),
    timeout: 170_000,
  })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

beforeAll(async () => {
  ledger = await openEmissionLedger(dir)
  await openBackend({ dbPath: ledger.location, keyFile: ledger.keyFile }).closeGracefully()
}, T)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.sequential('carats emission verify / verdict', () => {
  let commitment = ''
  let first = 0

  it(
    're-verifies an emission and prints each block verdict',
    () => {
      const r = carats(['emission', 'verify', '1'])
      expect(r.err).toBe('')
      expect(r.code).toBe(0)
      const [head, run, block] = r.out.trimEnd().split('\n')
      expect(head).toMatch(/^emission 1 \(TEST-1\) DEMO, 500 000 CARATS, definition [0-9a-f]{64}$/)
      expect(run).toMatch(
        /^verification (\d+) by os:\S+ \(admin\), \d{4}-\d\d-\d\dT[\d:.]+Z, [\d.]+ s, 1 of 1 block checked, CARATS back-office [\d.]+: SOUND: every block verified$/,
      )
      first = Number(/^verification (\d+)/.exec(run)![1])
      const m =
        /^ {2}block 0001-001: sound; commitment reproduced ([0-9a-f]{64}); 8,016,000 \/ 8,016,000 units checked; prize table exact; [\d.]+ s$/.exec(
          block,
        )
      expect(m).not.toBeNull()
      commitment = m![1]
      expect(
        withTestLedger(ledger, (db) =>
          db.prepare('SELECT commitment FROM blocks WHERE emission = 1 AND block = 1').pluck().get(),
        ),
      ).toBe(commitment)
    },
    T,
  )

  it(
    'says loudly that a block whose commitment was altered is unsound, and exits 1',
    () => {
      withTestLedger(
        ledger,
        (db) =>
          db.prepare('UPDATE blocks SET commitment = ? WHERE emission = 1 AND block = 1').run(forgedHex(commitment)),
        { write: true },
      )
      const r = carats(['--json', 'emission', 'verify', '1'])
      expect(r.code).toBe(1)
      const out = JSON.parse(r.out)
      expect(out.job).toMatchObject({ state: 'failed', reason: { key: 'VERIFY_FAILED', params: { blocks: '1' } } })
      expect(out.verification.run).toMatchObject({ outcome: 'unsound', unsoundBlocks: [1] })
      expect(out.verification.blocks[0]).toMatchObject({
        block: 1,
        sound: false,
        commitmentMatches: false,
        commitmentReproduced: commitment,
        prizeTableExact: true,
      })
      expect(out.emission.blockList[0].status).toBe('failed')

      const text = carats(['emission', 'verdict', '1'])
      expect(text.code).toBe(1)
      expect(text.out).toContain(': UNSOUND: block 1 does not verify')
      expect(text.out).toContain(
        `block 0001-001: UNSOUND; commitment NOT reproduced (recorded ff${commitment.slice(2)}, units give ${commitment})`,
      )
      expect(text.out).toContain(`the commitment differs (stored ff${commitment.slice(2)}, regenerated ${commitment})`)
      expect(text.out).toMatch(
        new RegExp(`earlier verifications:\\n {2}verification ${first} by .*SOUND: every block verified`),
      )
    },
    T,
  )

  it(
    'prints an earlier verification, and refuses one that does not exist',
    () => {
      const r = carats(['--json', 'emission', 'verdict', '1', '--verification', String(first)])
      expect(r.code).toBe(0)
      expect(JSON.parse(r.out)).toMatchObject({
        run: { id: first, outcome: 'sound' },
        blocks: [{ sound: true, commitmentRecorded: commitment }],
      })
      const none = carats(['emission', 'verdict', '1', '--verification', '999'])
      expect(none).toMatchObject({ code: 1, out: '' })
      expect(none.err).toBe('carats emission verdict: emission 1 has no verification 999\n')
      const bad = carats(['emission', 'verdict', '1', '--verification', 'last'])
      expect(bad.code).toBe(2)
      expect(bad.err).toMatch(/--verification must be a verification number/)
    },
    T,
  )
})
