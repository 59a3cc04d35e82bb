/**
 * Two workstations selling at once on one emission of one ledger (issue 17 parts 1 and 3): two
 * processes (a workstation's process waits on each statement, so two in one process would take
 * turns), one running the simulator on its worker thread, the other importing feeds of the next
 * units on its import worker (streamed: each feed is larger than STREAM_FROM_BYTES). Afterwards:
 * no unit sold twice, each block's sold count, tier counters, players' and days' totals equal to
 * the sales, and one audit chain, which the audit service verifies.
 *
 * It makes sense on both engines: on SQLite the two processes share the file and its lock.
 */
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openBackend } from '../../electron/app/backend'
import { STREAM_FROM_BYTES } from '../../electron/services/import'
import { testEngine, type TestLedgerLocation } from '../support/ledger-engine'
import { expectSoundLedger } from './ledger-crash-checks'
import { openEmissionLedger, templatePath, tempDir } from './ledger-fixture'

const ROOT = join(__dirname, '..', '..')
const STATION = join(__dirname, 'team-ledger-station.ts')
const SIMULATED = 120_000
const ROUNDS = 6
const FEED_LINES = 2_600

interface Step {
  what: string
  value: string
  at: number
}
interface Station {
  steps: Step[]
  firstLine: Promise<void>
  done: Promise<void>
}

let dir: string
let ledger: TestLedgerLocation
beforeAll(async () => {
  await templatePath()
  dir = tempDir('team-sales')
  ledger = await openEmissionLedger(dir)
}, 180_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A workstation's process (team-ledger-station.ts) on the test's ledger; its steps as it prints them. */
function station(mode: string, ...args: string[]): Station {
  const key = ledger.keyFile ? ['--key-file', ledger.keyFile] : []
  const child = spawn(process.execPath, ['--import', 'tsx', STATION, mode, ledger.location, ...args, ...key], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const steps: Step[] = []
  let stderr = ''
  let seen: () => void = () => {}
  const firstLine = new Promise<void>((resolve) => (seen = resolve))
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    for (const line of d.split('\n').filter(Boolean)) {
      const parts = line.split(' ')
      steps.push({ what: parts[0], value: parts.length > 2 ? parts[1] : '', at: Number(parts[parts.length - 1]) })
      seen()
    }
  })
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  const done = new Promise<void>((resolve, reject) => {
    child.on('error', reject)
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`the ${mode} station ended with ${code ?? signal}: ${stderr}`)),
    )
  })
  return { steps, firstLine, done }
}

describe(`two workstations selling at once on one ledger (${testEngine()})`, () => {
  it('the simulator and streamed imports on one emission: every unit sold once, totals and the audit chain whole', async () => {
    expect(FEED_LINES * 1700).toBeGreaterThan(STREAM_FROM_BYTES) // each feed goes the streamed way
    const simulator = station('simulate', String(SIMULATED), '7')
    await simulator.firstLine
    const importStart = Date.now()
    const importer = station('import', String(ROUNDS), String(FEED_LINES), '3')
    await Promise.all([simulator.done, importer.done])

    const simEnd = simulator.steps.find((s) => s.what === 'done')!.at
    const imported = importer.steps.filter((s) => s.what === 'imported')
    const refused = importer.steps.filter((s) => s.what === 'refused')
    // each round committed whole or was refused whole: a feed made from the next unit is refused
    // when the simulator sold that unit first (the rule that keeps a unit from being sold twice)
    expect(imported.length + refused.length).toBe(ROUNDS)
    expect(imported.every((s) => Number(s.value) === FEED_LINES)).toBe(true)
    // the two really worked at the same time: the importer started, and read the ledger, while the simulator sold
    expect(importStart, JSON.stringify({ simEnd, importer: importer.steps })).toBeLessThan(simEnd)
    expect(imported.length).toBeGreaterThan(0)

    const { sales } = expectSoundLedger(ledger.location)
    expect(sales).toBe(SIMULATED + imported.reduce((n, s) => n + Number(s.value), 0))

    const b = openBackend({ dbPath: ledger.location, keyFile: ledger.keyFile, threads: 1 })
    try {
      const v = b.services.audit.verify()
      expect(v.firstBad).toBeNull()
      expect(v.ok, JSON.stringify(v.checkpoint)).toBe(true)
      // every import that committed left its entry in the chain, a refused one its refusal (the
      // action filter takes a prefix: sales.import counts both)
      expect(b.services.audit.list({ page: 1, pageSize: 1, action: 'sales.import' }).total).toBe(ROUNDS)
      expect(b.services.audit.list({ page: 1, pageSize: 1, action: 'sales.import-rejected' }).total).toBe(
        refused.length,
      )
    } finally {
      await b.closeGracefully()
    }
  }, 300_000)
})
