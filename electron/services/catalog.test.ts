/**
 * The catalog keeps an emission's fixed facts once read (each read is a round trip on a team
 * ledger): that is right only while no statement changes them after the emission is created.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EMISSION_FACT_COLUMNS } from './catalog'
import { smallDefinition } from '../../test/support/game-fixtures'
import { openLedgerFixture } from '../../test/support/simulator-world'

/** Every `UPDATE emissions SET …` of the services and the ledger, with the columns it sets. */
function emissionUpdates(): { file: string; columns: string[] }[] {
  const root = join(__dirname, '..')
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
  )
  // the schema's steps run when the ledger opens, before any catalog; its refusals are statements it refuses
  const runtime = files.filter((f) => !/(^|\/)ledger\/schema\//.test(f))
  return runtime.flatMap((file) =>
    [...readFileSync(join(root, file), 'utf8').matchAll(/UPDATE emissions SET ([\s\S]*?) WHERE/g)].map((m) => ({
      file,
      columns: m[1].split(',').map((part) => part.trim().split(/\s*=/)[0]),
    })),
  )
}

describe("the catalog's fixed facts of an emission", () => {
  it('are never updated once the emission exists', () => {
    const updates = emissionUpdates()
    expect(updates.length).toBeGreaterThan(3) // the scan finds the status changes
    for (const u of updates)
      for (const c of u.columns) expect(EMISSION_FACT_COLUMNS, `${u.file} updates ${c}`).not.toContain(c)
  })

  it('are the stored ones, and a status change shows at once beside them', async () => {
    const f = openLedgerFixture({ definition: smallDefinition() })
    try {
      const e = await f.openEmission({ startsOn: '2025-01-01' })
      const facts = f.catalog.facts(e)
      const row = f.catalog.emission(e)
      for (const c of EMISSION_FACT_COLUMNS) expect(facts[c]).toEqual(row[c])
      f.db.prepare("UPDATE emissions SET status = 'closed' WHERE emission = ?").run(e)
      expect(f.catalog.emission(e).status).toBe('closed')
      expect(f.catalog.blockState(e, 1)).toMatchObject({ status: f.catalog.block(e, 1).status, sealed: 1 })
      expect(() => f.catalog.facts(e + 1)).toThrow(/emission \d+ does not exist/)
      expect(() => f.catalog.blockState(e, 99)).toThrow(/has no block 99/)
    } finally {
      f.close()
    }
  })
})
