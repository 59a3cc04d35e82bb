/**
 * A vault's days exported for a regulator, and days let go after six years: what is left
 * verifies on its own from `start.json`; a purge of younger days is refused; an export or a
 * purged vault whose first kept day was altered is caught.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { keyStoreFromKey } from '../../ledger/keystore'
import { exportVault, purgeVault } from './export'
import { openVaultWriter, prepareVaultFolder } from './folder'
import { VAULT_FORMAT } from './format'
import { vaultSigner } from './signer'
import { verifyVault } from './verify'

const dirs: string[] = []
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })))
const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), 'carats-vault-export-'))
  dirs.push(d)
  return d
}

const DAYS = ['2018-05-02', '2019-11-30', '2024-01-15', '2026-12-01']

/** A vault with ten events on each of DAYS, each day its own round and checkpoint. */
function vaultOverYears(): string {
  const folder = join(scratch(), 'vault')
  const signer = vaultSigner(keyStoreFromKey(randomBytes(32)), 'L1')
  prepareVaultFolder(folder, {
    format: VAULT_FORMAT,
    origin: signer.origin,
    ledger: 'L1',
    key: signer.verifierKey,
    created: DAYS[0],
  })
  const w = openVaultWriter(folder)
  for (const day of DAYS) {
    const at = `${day}T10:00:00.000Z`
    const first = w.state.size
    w.append(
      Array.from({ length: 10 }, (_, k) => JSON.stringify({ i: first + k, at, type: 'audit', seq: first + k + 1 })),
      at,
    )
    w.commit(signer, at)
  }
  return folder
}

describe('vault export and purge', () => {
  it('exports a range of days that verifies on its own, and catches a change in it', () => {
    const folder = vaultOverYears()
    const out = join(scratch(), 'export')
    const r = exportVault(folder, '2019-01-01', '2024-12-31', out, '2026-12-07T00:00:00Z')
    expect(r).toMatchObject({ firstEvent: 10, events: 20, files: 2 })
    expect(readdirSync(join(out, 'events'))).toEqual(['2019-11-30.jsonl', '2024-01-15.jsonl'])
    expect(verifyVault(out)).toMatchObject({ ok: true, firstEvent: 10, events: 30, unsigned: 0, problems: [] })
    const file = join(out, 'events', '2019-11-30.jsonl')
    writeFileSync(file, readFileSync(file, 'utf8').replace('"seq":12', '"seq":13'))
    expect(verifyVault(out).problems.join('\n')).toMatch(
      /the checkpoint of 20 events .* does not match the first 20 events/,
    )
  })

  it('refuses to purge days younger than six years, and what is left after a purge still verifies', () => {
    const folder = vaultOverYears()
    const today = new Date('2026-12-07T12:00:00Z')
    expect(() => purgeVault(folder, '2021-01-01', today)).toThrow(/keeps six years: days from 2020-12-07 on/)
    expect(readdirSync(join(folder, 'events'))).toHaveLength(4)
    expect(purgeVault(folder, '2020-01-01', today)).toMatchObject({ files: 2, events: 20 })
    expect(readdirSync(join(folder, 'events'))).toEqual(['2024-01-15.jsonl', '2026-12-01.jsonl'])
    expect(verifyVault(folder)).toMatchObject({ ok: true, firstEvent: 20, events: 40, problems: [] })
  })
})
