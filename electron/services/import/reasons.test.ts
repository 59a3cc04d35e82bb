/**
 * What an import leaves in its history row: a refusal's reasons grouped by kind (bounded), as a
 * CSV file in both forms and languages; an import's lines, units and the prize claims its sales
 * opened, the same whichever way the feed was read; and the sample feed the app offers.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { formatSerial } from '../../../game-core/serial'
import { smallDefinition } from '../../../test/support/game-fixtures'
import { refusal } from '../../../test/support/refusal'
import { openLedgerFixture, TEST_ACTOR, type LedgerFixture } from '../../../test/support/simulator-world'
import { MAX_REASON_GROUPS, MAX_REASON_LINES } from '../../contract/import-reasons'
import type { ImportLineError } from '../../contract/types'
import { createSalesGenerator } from '../simulator'
import { feedLine } from './feed'
import { createImporter, type Importer } from './importer'

const NOW = Date.parse('2025-03-20T15:00:00Z')

const open: LedgerFixture[] = []
afterEach(() => {
  while (open.length) open.pop()!.close()
})

/** Emission 1 open (sales from 2025-03-01; from a 5 € prize up a winner claims: most winners do); `streamFrom` picks the way of reading. */
async function fresh(
  streamFrom = Infinity,
  demo = true,
): Promise<{ f: LedgerFixture; importer: Importer; ways: string[] }> {
  const f = openLedgerFixture({ definition: smallDefinition(), clock: () => new Date(NOW) })
  open.push(f)
  await f.openEmission({ startsOn: '2025-03-01', claimThresholdCents: 1_500, demo })
  const { db, clock, catalog, sales, audit } = f
  const ways: string[] = []
  const onRead = (how: string) => void ways.push(how)
  return { f, importer: createImporter({ db, clock, catalog, sales, audit, streamFrom, onRead }), ways }
}

/** `count` sales of emission 1 from unit `from`, as JSON objects (to spoil some). */
function sales(from: number, count: number): Record<string, unknown>[] {
  const gen = createSalesGenerator({
    seed: from + 3,
    players: 30,
    count,
    fromMs: Date.parse('2025-03-02T08:00:00Z'),
    toMs: Date.parse('2025-03-19T20:00:00Z'),
    zones: smallDefinition(),
  })
  return Array.from({ length: count }, (_, i) => {
    const d = gen.next()
    const serial = formatSerial({ emission: 1, block: 1, unit: from + i }, 10_000)
    const line = { saleId: `R-${from + i}`, serial, player: d.player, soldAt: d.soldAt, stakeCents: 500, play: d.play }
    return JSON.parse(feedLine(line)) as Record<string, unknown>
  })
}
const feedOf = (lines: Record<string, unknown>[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n'
const count = (f: LedgerFixture, table: string) => Number(f.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get())

/** A feed of 20 lines: line 2's play drags in an auto play on every event, lines 3–16 stake 4 €, 17 and 18 miss a field each. */
function brokenFeed(): string {
  const lines = sales(0, 20)
  const auto = { mode: 'auto', status: 'complete', events: [] as Record<string, unknown>[] }
  const full = lines.find((l) => (l.play as { status?: string } | null)?.status === 'complete')!.play as typeof auto
  lines[1] = { ...lines[1], play: { ...auto, events: full.events.map((e) => ({ ...e, gesture: 'drag' })) } }
  for (let i = 2; i < 16; i++) lines[i] = { ...lines[i], stakeCents: 400 }
  delete lines[16].player
  delete lines[17].saleId
  return feedOf(lines)
}

describe("a refused feed's reasons, kept with its history row", () => {
  it('are grouped by kind of problem, with how often, on how many lines and the first lines; no sale is left behind', async () => {
    const { f, importer } = await fresh()
    const e = refusal(() => importer.importContent(TEST_ACTOR, brokenFeed(), 'broken.jsonl'))
    expect(e.code).toBe('IMPORT_REJECTED')
    expect((e.extras.details as ImportLineError[]).map((l) => l.line)).toEqual([
      2,
      ...Array.from({ length: 16 }, (_, i) => i + 3),
    ])
    expect(count(f, 'sales')).toBe(0)
    expect(count(f, 'claims')).toBe(0)

    const row = importer.history({ page: 1, pageSize: 1 }).items[0]
    expect(row).toMatchObject({ result: 'refused', badLines: 17, claims: null, fileName: 'broken.jsonl' })
    const groups = row.reasons!.groups.map((g) => [g.code, g.params.field ?? null, g.occurrences, g.lineCount, g.lines])
    expect(groups).toEqual([
      ['EVENT_AUTO_DRAG', null, 30, 1, [2]],
      ['STAKE', null, 14, 14, [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]],
      ['FIELD_MISSING', 'player', 1, 1, [17]],
      ['FIELD_MISSING', 'saleId', 1, 1, [18]],
    ])
    expect(row.reasons).toMatchObject({ groupsLeft: 0, reasonsLeft: 0, complete: true })
    // each group says its first occurrence, in English and as values for the screens
    const stake = row.reasons!.groups[1]
    expect(stake.text).toBe('stakeCents must be the unit price, 500, not 400')
    expect(stake.params).toMatchObject({ expectedCents: 500, gotCents: 400 })
    expect(row.reasons!.groups[0].params).toEqual({ event: 1 })
  })

  it(`are bounded: at most ${MAX_REASON_GROUPS} groups of ${MAX_REASON_LINES} line numbers, the rest counted`, async () => {
    const { importer } = await fresh()
    const lines = sales(0, 25).map((l, i) => ({ ...l, [`extra${i}`]: 1 }))
    refusal(() => importer.importContent(TEST_ACTOR, feedOf(lines), 'fields.jsonl'))
    const { reasons } = importer.history({ page: 1, pageSize: 1 }).items[0]
    expect(reasons!.groups).toHaveLength(MAX_REASON_GROUPS)
    expect(reasons!.groups.map((g) => g.lines[0])).toEqual(Array.from({ length: MAX_REASON_GROUPS }, (_, i) => i + 1))
    expect(reasons).toMatchObject({ groupsLeft: 25 - MAX_REASON_GROUPS, reasonsLeft: 25 - MAX_REASON_GROUPS })
  })

  it('of an entry written before they were kept are its first bad line, said to be incomplete', async () => {
    const { f, importer } = await fresh()
    const problems = [{ code: 'STAKE', params: { expectedCents: 500, gotCents: 400 } }]
    f.audit.record('old-operator', 'sales.import-rejected', 'import:rejected', {
      fileName: 'old.jsonl',
      badLines: 3,
      first: { line: 4, reason: 'stakeCents must be the unit price, 500, not 400', problems },
    })
    const { reasons } = importer.history({ page: 1, pageSize: 1 }).items[0]
    expect(reasons).toMatchObject({ complete: false, groups: [{ code: 'STAKE', occurrences: 1, lines: [4] }] })
  })

  it('are exported as CSV: for a spreadsheet in French (the default) or English, or for programs', async () => {
    const { importer } = await fresh()
    refusal(() => importer.importContent(TEST_ACTOR, brokenFeed(), 'broken.jsonl'))
    const { seq } = importer.history({ page: 1, pageSize: 1 }).items[0]

    const fr = importer.reasonsCsv({ seq, form: 'office', locale: 'fr' })
    expect(fr.fileName).toBe(`import-${seq}-refus.csv`)
    const frLines = fr.content.split('\n')
    expect(frLines[0]).toMatch(
      /^\ufeff# Logiciel\u00a0: .*;Données au\u00a0: 20\/03\/2025 .*;Importation n°\u00a0: \d+;Fichier\u00a0: broken\.jsonl$/,
    )
    expect(frLines[1]).toBe('Problème;Champ;Occurrences;Lignes concernées;Premières lignes;Premier cas (en anglais)')
    expect(frLines[3]).toBe(
      'Mise différente du prix de l’unité;;14;14;3, 4, 5, 6, 7, 8, 9, 10, 11, 12, …;stakeCents must be the unit price, 500, not 400',
    )
    expect(frLines[4]).toMatch(/^Champ manquant;player;1;1;17;/)

    const en = importer.reasonsCsv({ seq, form: 'office', locale: 'en' })
    expect(en.content.split('\n')[1]).toBe('Problem,Field,Occurrences,Lines,First lines,First case')
    expect(en.content.split('\n')[2]).toBe(
      'Drag in an auto play,,30,1,2,"the play breaks the rules: event 1: an auto play is revealed by the game, not by a drag"',
    )

    const machine = importer.reasonsCsv({ seq, form: 'machine', locale: 'fr' })
    const m = machine.content.split('\n')
    expect(m[0]).toMatch(/^# software=.*,import=\d+,file=broken\.jsonl$/)
    expect(m[1]).toBe('problem,field,occurrences,line_count,first_lines,detail')
    expect(m[3]).toBe('STAKE,,14,14,3 4 5 6 7 8 9 10 11 12 …,"stakeCents must be the unit price, 500, not 400"')
  })

  it('are exported with a row for the groups not kept; an import that was not refused for its lines has none to export', async () => {
    const { importer } = await fresh()
    const lines = sales(0, 22).map((l, i) => ({ ...l, [`extra${i}`]: 1 }))
    refusal(() => importer.importContent(TEST_ACTOR, feedOf(lines), 'fields.jsonl'))
    const refused = importer.history({ page: 1, pageSize: 1 }).items[0]
    const rows = importer.reasonsCsv({ seq: refused.seq, form: 'office', locale: 'fr' }).content.trim().split('\n')
    expect(rows).toHaveLength(2 + MAX_REASON_GROUPS + 1)
    expect(rows.at(-1)).toBe('Autres problèmes (2 sortes, non détaillées);;2;;;')

    importer.importContent(TEST_ACTOR, feedOf(sales(0, 3)), 'good.jsonl')
    const good = importer.history({ page: 1, pageSize: 1 }).items[0]
    const notRefused = refusal(() => importer.reasonsCsv({ seq: good.seq, form: 'office', locale: 'fr' }))
    expect(notRefused.code).toBe('NOT_FOUND')
    expect(notRefused.message).toBe(`import ${good.seq} has no line reasons: it was not refused`)
    const none = refusal(() => importer.reasonsCsv({ seq: 999_999, form: 'machine', locale: 'en' }))
    expect(none.message).toMatch(/^no import numbered 999999 in the history/)
  })
})

describe("a successful import's result, kept with its history row", () => {
  for (const [way, streamFrom] of [
    ['careful', Infinity],
    ['streamed', 0],
  ] as const)
    it(`holds its lines, units and the prize claims its sales opened (read the ${way} way)`, async () => {
      const { f, importer, ways } = await fresh(streamFrom)
      let claimsBefore = 0
      for (const [from, n] of [
        [0, 40],
        [40, 60],
      ]) {
        const r = importer.importContent(TEST_ACTOR, feedOf(sales(from, n)), `day-${from}.jsonl`)
        expect(r).toEqual({ lines: n, imported: n, alreadyImported: 0 })
        const row = importer.history({ page: 1, pageSize: 1 }).items[0]
        const opened = count(f, 'claims') - claimsBefore
        expect(opened).toBeGreaterThan(0)
        expect(row).toMatchObject({ result: 'imported', lines: n, imported: n, claims: opened, reasons: null })
        claimsBefore += opened
      }
      expect(ways).toEqual([way, way])
      // the same feed again: nothing new, no claim opened
      importer.importContent(TEST_ACTOR, feedOf(sales(0, 40)), 'day-0-again.jsonl')
      expect(importer.history({ page: 1, pageSize: 1 }).items[0]).toMatchObject({ result: 'already', claims: 0 })
    })
})

describe('the sample feed', () => {
  it('is three sales of the next units of an open demonstration emission, in the feed format, and imports as it is', async () => {
    const { f, importer } = await fresh()
    importer.importContent(TEST_ACTOR, feedOf(sales(0, 5)), 'first.jsonl')
    const sample = importer.sampleFeed()
    expect(sample).toMatchObject({ fileName: 'sample-feed-E0001.jsonl', emission: 1, importable: true })
    const lines = sample.content
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines.map((l) => l.serial)).toEqual(
      [5, 6, 7].map((u) => formatSerial({ emission: 1, block: 1, unit: u }, 10_000)),
    )
    expect(lines.map((l) => (l.play as { mode: string; status: string }).mode)).toEqual(['play', 'auto', 'play'])
    expect(lines[2].play).toMatchObject({ status: 'interrupted' })
    expect(lines[0].soldAt).toMatch(/Z$/)
    // Paris in March 2025: an hour ahead of UTC (the clock reads 20 March)
    expect(lines[1].soldAt).toMatch(/^2025-03-20T15:58:00\+01:00$/)
    expect(importer.importContent(TEST_ACTOR, sample.content, sample.fileName)).toEqual({
      lines: 3,
      imported: 3,
      alreadyImported: 0,
    })
    expect(count(f, 'sales')).toBe(8)
  })

  it('of an emission created a moment ago is dated no earlier than its creation, and still imports', async () => {
    const f = openLedgerFixture({ definition: smallDefinition(), clock: () => new Date(NOW) })
    open.push(f)
    await f.openEmission()
    const { db, clock, catalog, sales, audit } = f
    const importer = createImporter({ db, clock, catalog, sales, audit })
    const sample = importer.sampleFeed()
    expect(sample.importable).toBe(true)
    const times = sample.content
      .trim()
      .split('\n')
      .map((l) => Date.parse((JSON.parse(l) as { soldAt: string }).soldAt))
    expect(times).toEqual([NOW, NOW, NOW])
    expect(importer.importContent(TEST_ACTOR, sample.content, sample.fileName).imported).toBe(3)
  })

  it('is the format only, for an emission still to come, when no demonstration emission is open: an import refuses it', async () => {
    const { f, importer } = await fresh(Infinity, false)
    const sample = importer.sampleFeed()
    expect(sample).toMatchObject({ fileName: 'sample-feed-E0002.jsonl', emission: 2, importable: false })
    const e = refusal(() => importer.importContent(TEST_ACTOR, sample.content, sample.fileName))
    const details = e.extras.details as ImportLineError[]
    expect(details.map((l) => l.problems.map((p) => p.code))).toEqual([
      ['EMISSION_UNKNOWN'],
      ['EMISSION_UNKNOWN'],
      ['EMISSION_UNKNOWN'],
    ])
    expect(count(f, 'sales')).toBe(0)
  })
})
