import { describe, expect, it } from 'vitest'
import type { EmissionSummary, PlayerSummary } from '../../../../electron/contract'
import { ROLES, type Role } from '../../../../electron/contract/define'
import { formatSerial } from '../../../../game-core/serial'
import { canUse } from '../../access'
import {
  candidatesOf,
  lookupsFor,
  matchEmissions,
  MAX_PLAYERS,
  NOTHING_FOUND,
  outcomeOf,
  playersLeftOut,
  reachesAny,
  reachOf,
  routeOf,
  type Candidate,
  type Found,
  type Reach,
} from './candidates'
import { readSearchText } from './searchText'

const ALL: Reach = { ticket: true, player: true, claim: true, emission: true }
const serial = formatSerial({ emission: 1, block: 1, unit: 4242 })

const emission = (n: number, code: string, demo = false) =>
  ({ emission: n, code, demo, status: 'open' }) as EmissionSummary
const player = (id: string, units = 3) => ({ player: id, units }) as PlayerSummary
const EMISSIONS = [emission(1, 'E2E-CLAIMS', true), emission(2, 'P00'), emission(3, 'PRINTEMPS'), emission(12, '')]

const found = (f: Partial<Found>): Found => ({ ...NOTHING_FOUND, ...f })
const kinds = (cs: Candidate[]) => cs.map((c) => c.key)

describe('what each role may search', () => {
  const reach = (role: Role) => reachOf((c) => canUse(c, role))

  it('follows the contract: a kind needs its lookup and its screen', () => {
    expect(reach('admin')).toEqual(ALL)
    expect(reach('support')).toEqual(ALL)
    expect(reach('auditor')).toEqual(ALL)
    // a manager reads claims and emissions, not support's player screen (players:last)
    expect(reach('manager')).toEqual({ ticket: true, player: false, claim: true, emission: true })
    // an operator sees no claims nor players
    expect(reach('operator')).toEqual({ ticket: true, player: false, claim: false, emission: true })
    expect(reach('regulator')).toEqual({ ticket: false, player: false, claim: false, emission: false })
    // the regulator, who reaches none, gets no box at all
    expect(reachesAny(reach('regulator'))).toBe(false)
    expect(reachesAny(reach('operator'))).toBe(true)
    expect(ROLES).toHaveLength(6)
  })

  it('looks up only what the role may reach', () => {
    const q = readSearchText('P00')
    expect(lookupsFor(q, ALL)).toEqual({ player: 'P00', reference: 'P00', emissions: true })
    expect(lookupsFor(q, reach('operator'))).toEqual({ player: null, reference: null, emissions: true })
    expect(lookupsFor(q, reach('manager'))).toEqual({ player: null, reference: 'P00', emissions: true })
    expect(lookupsFor(readSearchText('x'.repeat(40)), ALL)).toMatchObject({ emissions: false })
  })

  it('offers no claim to a role without claims, even when one was found', () => {
    const q = readSearchText('VIR-2026-0001')
    const f = found({ claims: [serial] })
    expect(kinds(candidatesOf(q, f, ALL))).toEqual([`claim:${serial}`])
    expect(candidatesOf(q, f, { ...ALL, claim: false })).toEqual([])
    expect(candidatesOf(readSearchText(serial), NOTHING_FOUND, { ...ALL, ticket: false })).toEqual([])
  })
})

describe('matching emissions', () => {
  it('by number or code ignoring case, exact matches before codes that start with the text', () => {
    expect(matchEmissions(readSearchText('1'), EMISSIONS).map((e) => e.emission)).toEqual([1])
    expect(matchEmissions(readSearchText('0012'), EMISSIONS).map((e) => e.emission)).toEqual([12])
    expect(matchEmissions(readSearchText('e2e-claims'), EMISSIONS).map((e) => e.emission)).toEqual([1])
    expect(matchEmissions(readSearchText('p'), EMISSIONS).map((e) => e.emission)).toEqual([2, 3])
    expect(matchEmissions(readSearchText('P00'), EMISSIONS).map((e) => e.emission)).toEqual([2])
    expect(matchEmissions(readSearchText('CLAIMS'), EMISSIONS)).toEqual([])
    // an emission without a code matches nothing but its number
    expect(matchEmissions(readSearchText('x'), [emission(12, '')])).toEqual([])
  })
})

describe('the candidates and what Enter does', () => {
  it('opens a serial at once in the ticket inspector', () => {
    const cs = candidatesOf(readSearchText(serial), NOTHING_FOUND, ALL)
    expect(cs).toEqual([{ kind: 'ticket', key: `ticket:${serial}`, serial }])
    expect(outcomeOf(cs)).toEqual({ kind: 'open', candidate: cs[0] })
    expect(routeOf(cs[0])).toEqual({ name: 'tickets', params: { serial } })
  })

  it('opens the one player, claim or emission found on its screen', () => {
    const p = candidatesOf(readSearchText('P0001234'), found({ players: [player('P0001234')], playersTotal: 1 }), ALL)
    expect(outcomeOf(p)).toMatchObject({ kind: 'open' })
    expect(routeOf(p[0])).toEqual({ name: 'support', query: { player: 'P0001234' } })
    const c = candidatesOf(readSearchText(' VIR-2026-0001 '), found({ claims: [serial] }), ALL)
    expect(c).toEqual([{ kind: 'claim', key: `claim:${serial}`, serial, reference: 'VIR-2026-0001' }])
    expect(routeOf(c[0])).toEqual({ name: 'claim', params: { serial } })
    const e = candidatesOf(readSearchText('e2e-claims'), found({ emissions: EMISSIONS }), ALL)
    expect(e).toEqual([
      { kind: 'emission', key: 'emission:1', emission: 1, code: 'E2E-CLAIMS', status: 'open', demo: true },
    ])
    expect(routeOf(e[0])).toEqual({ name: 'emission', params: { emission: '1' } })
  })

  it('lists an emission code that is also the start of player ids, to choose from', () => {
    const q = readSearchText('P00')
    const f = found({ emissions: EMISSIONS, players: [player('P0001234'), player('P0009876')], playersTotal: 2 })
    const cs = candidatesOf(q, f, ALL)
    expect(kinds(cs)).toEqual(['emission:2', 'player:P0001234', 'player:P0009876'])
    expect(outcomeOf(cs)).toEqual({ kind: 'choose', candidates: cs })
  })

  it('puts the player whose id is the text first, and counts the players not listed', () => {
    const q = readSearchText('p-1')
    const many = ['P-10', 'P-11', 'P-1', 'P-12', 'P-13', 'P-14'].map((id) => player(id))
    const f = found({ players: many, playersTotal: 40 })
    const cs = candidatesOf(q, f, ALL)
    expect(cs).toHaveLength(MAX_PLAYERS)
    expect(cs[0]).toMatchObject({ kind: 'player', player: 'P-1' })
    expect(playersLeftOut(f, cs)).toBe(40 - MAX_PLAYERS)
    // one listed among many: still to choose, not opened
    const one = candidatesOf(q, found({ players: [player('P-10')], playersTotal: 9 }), ALL)
    expect(outcomeOf(one, playersLeftOut(found({ playersTotal: 9 }), one))).toMatchObject({ kind: 'choose' })
  })

  it('says nothing matches when nothing was found', () => {
    expect(outcomeOf(candidatesOf(readSearchText('zzz'), NOTHING_FOUND, ALL))).toEqual({ kind: 'none' })
    expect(outcomeOf([])).toEqual({ kind: 'none' })
  })
})
