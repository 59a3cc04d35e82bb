/**
 * The claims' CSV export: one row per claim under the filters, each step's who and when, in the
 * machine form (ids, cents, ISO times) and the office form (words, decimal comma, `;`), with the
 * filters on its first line.
 */
import { describe, expect, it } from 'vitest'
import { parseCsv } from '../../../test/support/parse-csv'
import { STAFF, useClaimsWorlds } from '../../../test/support/claims-world'
import { localTime } from '../csv'

const world = useClaimsWorlds('claims-csv')
const { support: suzy, manager: max, admin: ada, auditor: aude } = STAFF
const PLAYERS = ['alice', 'bob', '=carol']
const ZONE = 'Europe/Paris'

async function worldWithSteps() {
  const w = await world()
  // the blocks' secrets are random: 1,500 units were once seen to hold a single claim
  w.sell(1500, PLAYERS)
  // until there are four claims, one of them alice's (a run once met four, none hers)
  const enough = () => {
    const all = w.claims.all({})
    return all.length >= 4 && all.some((c) => c.player === 'alice')
  }
  while (!enough()) w.sell(500, PLAYERS)
  // alice's first claim is paid, the next claim rejected
  const all = w.claims.all({})
  const paid = all.find((c) => c.player === 'alice')!
  const rejected = all.find((c) => c !== paid)!
  w.claims.verify(suzy, paid.serial, {
    document: 'passport',
    reference: '18AB12345',
    name: 'Jeanne Dupont',
    birthDate: '1980-04-02',
  })
  w.claims.approve(max, paid.serial)
  w.claims.pay(ada, paid.serial, 'VIR-2026-001', 'transfer')
  w.claims.reject(aude, rejected.serial, 'ticket reported stolen; police report 42')
  return {
    w,
    claims: w.claims.all({}),
    paid: w.claims.get(paid.serial).claim,
    rejected: w.claims.get(rejected.serial).claim,
  }
}

describe('claims:csv', () => {
  it('writes every claim, oldest sale first, with each step in the machine form', async () => {
    const { w, claims, paid, rejected } = await worldWithSteps()
    expect(claims.length).toBeGreaterThan(3)
    const f = w.claims.csv({})
    const [about, header, ...rows] = parseCsv(f.content)
    expect(f.content.startsWith('#')).toBe(true)
    expect(about[0]).toMatch(/^# software=carats-back-office /)
    expect(about.slice(2)).toEqual(['status=', 'emission=', 'player='])
    expect(header).toEqual([
      'serial',
      'emission',
      'player',
      'prize_cents',
      'sold_at',
      'status',
      'related',
      'verified_by',
      'verified_at',
      'document',
      'document_ref',
      'approved_by',
      'approved_at',
      'signed_off_by',
      'signed_off_at',
      'paid_by',
      'paid_at',
      'payment_ref',
      'rejected_by',
      'rejected_at',
      'rejected_from',
      'reject_reason',
      'winner',
      'payment_method',
      'expired_at',
      'assigned_to',
      'days_pending',
      'demo_emission',
    ])
    expect(rows.map((r) => r[0])).toEqual(claims.map((c) => c.serial))
    const row = (serial: string) => rows.find((r) => r[0] === serial)!
    expect(row(paid.serial)).toEqual([
      paid.serial,
      String(w.emission),
      paid.player,
      '10000',
      paid.soldAt,
      'paid',
      'no',
      'suzy',
      paid.verified!.at,
      'passport',
      '…2345',
      'max',
      paid.approved!.at,
      '',
      '',
      'ada',
      paid.paid!.at,
      'VIR-2026-001',
      '',
      '',
      '',
      '',
      'J. D. (1980)',
      'transfer',
      '',
      '',
      '',
      'yes',
    ])
    expect(row(rejected.serial).slice(5, 8)).toEqual(['rejected', 'no', ''])
    expect(row(rejected.serial).slice(18, 22)).toEqual([
      'aude',
      rejected.rejected!.at,
      'pending',
      'ticket reported stolen; police report 42',
    ])
    // an open claim: how long it has waited
    expect(Number(rows.find((r) => r[5] === 'pending')![26])).toBeGreaterThanOrEqual(0)
    // a player id a spreadsheet would run as a formula is written as text
    const carol = rows.find((r) => r[2].includes('carol'))!
    expect(carol[2]).toBe("'=carol")
    const others = rows.filter((r) => r[0] !== paid.serial && r[0] !== rejected.serial)
    expect(others.length).toBe(claims.length - 2)
    expect(others.every((r) => r[5] === 'pending' && r[7] === '')).toBe(true)
    expect(f.fileName).toMatch(/^claims-\d{4}-\d{2}-\d{2}\.csv$/)
  })

  it('names its filters on the first line, in words and with a decimal comma in the French office form', async () => {
    const { w, paid } = await worldWithSteps()
    const f = w.claims.csv({
      status: 'paid',
      emission: w.emission,
      player: 'ALICE',
      form: 'office',
      locale: 'fr',
      timeZone: ZONE,
    })
    expect(f.content.startsWith('\ufeff#')).toBe(true)
    const [about, header, ...rows] = parseCsv(f.content.slice(1), ';')
    expect(about[0]).toMatch(/^# Logiciel\u00a0: Carats back-office /)
    expect(about[1]).toMatch(/^Données au\u00a0: \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2} \(Europe\/Paris\)$/)
    expect(about.slice(2)).toEqual(['Statut\u00a0: payé', `Émission\u00a0: ${w.emission}`, 'Joueur\u00a0: ALICE'])
    expect(header.slice(0, 7)).toEqual([
      'Numéro de série',
      'Émission',
      'Joueur',
      'Lot (€)',
      'Vendu le',
      'Statut',
      'Personne liée',
    ])
    expect(rows).toHaveLength(1)
    expect(rows[0].slice(0, 11)).toEqual([
      paid.serial,
      String(w.emission),
      'alice',
      '100,00',
      localTime(paid.soldAt, ZONE),
      'payé',
      'non',
      'suzy',
      localTime(paid.verified!.at, ZONE),
      'passeport',
      '…2345',
    ])
    expect(f.fileName).toMatch(/^claims-E\d{4}-paid-player-/)
  })

  it('says "no activity" when no claim matches, in English with a decimal point', async () => {
    const { w } = await worldWithSteps()
    const none = parseCsv(
      w.claims.csv({ status: 'approved', form: 'office', locale: 'en', timeZone: ZONE }).content.slice(1),
    )
    expect(none).toHaveLength(2)
    expect(none[0].slice(2)).toEqual(['Status: approved', 'Emission: —', 'Player: —', 'No activity'])
    const pending = parseCsv(w.claims.csv({ status: 'pending', form: 'office', locale: 'en' }).content.slice(1))
    expect(pending[2][3]).toBe('100.00')
    expect(pending.length - 2).toBe(w.claims.list({ status: 'pending' }).total)
  })
})
