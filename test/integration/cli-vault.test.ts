/**
 * The vault from the command line (issue 33): attached, fed by a command's own writes as it ends,
 * verified from its folder alone, witnessed; an altered file fails `vault verify` (exit 1), and
 * `audit verify` says how the log stands against the vault.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../electron/cli/main'
import { feedLine } from '../../electron/services/import'
import { formatSerial } from '../../game-core/serial'
import { ledgerArgs, type TestLedgerLocation } from '../support/ledger-engine'
import { openEmissionLedger, samplePlay, T0, tempDir } from './ledger-fixture'

const dir = tempDir('cli-vault')
const vault = join(dir, 'vault')
const witness = join(dir, 'witness')
let ledger: TestLedgerLocation

async function carats(...args: string[]) {
  let out = ''
  let err = ''
  const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += t), progress: () => {} }
  const code = await runCli([...ledgerArgs(ledger), ...args], io)
  return { code, out, err }
}

beforeAll(async () => {
  ledger = await openEmissionLedger(dir)
}, 180_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe.sequential('carats vault, carats witness', () => {
  it('attaches a vault, and a command sends its own writes as it ends', async () => {
    const attached = await carats('vault', 'attach', vault)
    expect(attached.err).toBe('')
    expect(attached.code).toBe(0)
    expect(attached.out).toMatch(
      new RegExp(`^vault ${vault}: 0 sales and \\d+ audit entries in \\d+ lines, last checkpoint \\S+; up to date\\n`),
    )
    const feed = join(dir, 'feed.jsonl')
    const lines = Array.from({ length: 40 }, (_, i) =>
      feedLine({
        saleId: `CLI-${i}`,
        serial: formatSerial({ emission: 1, block: 1, unit: i }),
        player: `p${i % 3}`,
        soldAt: T0 + 86_400_000 + i * 1000,
        stakeCents: 500,
        play: samplePlay(i),
      }),
    )
    writeFileSync(feed, lines.join('\n') + '\n')
    expect((await carats('sales', 'import', feed)).code).toBe(0)
    const status = await carats('--json', 'vault', 'status')
    expect(JSON.parse(status.out)).toMatchObject({ attached: true, behind: { entries: 0, sales: 0 }, problem: null })
  }, 120_000)

  it('verifies the vault from its folder, and a witness cosigns it', async () => {
    const verified = await carats('vault', 'verify', vault, '--event', '0')
    expect(verified.code).toBe(0)
    expect(verified.out).toMatch(/^vault .*: SOUND\n/)
    expect(verified.out).toMatch(/event 0 IS included in the checkpoint of \d+ events/)
    expect((await carats('witness', 'init', witness, '--name', 'audit.example/aude')).code).toBe(0)
    const cosigned = await carats('witness', 'cosign', witness, '--vault', vault)
    expect(cosigned.out).toMatch(
      /^witness audit.example\/aude cosigned the vault's checkpoint of \d+ events: its first/,
    )
    const audit = await carats('audit', 'verify')
    expect(audit.code).toBe(0)
    expect(audit.out).toMatch(
      /vault .*: the log agrees with the \d+ events it received\n {2}witness audit.example\/aude: cosigned/,
    )
  }, 120_000)

  it('fails `vault verify` on an altered file', async () => {
    const [day] = readdirSync(join(vault, 'events'))
    const file = join(vault, 'events', day)
    writeFileSync(file, readFileSync(file, 'utf8').replace('"stakeCents":500', '"stakeCents":50'))
    const r = await carats('vault', 'verify', vault)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/NOT SOUND[\s\S]*does not match the first \d+ events/)
  }, 120_000)
})
