/**
 * What the header's search found, as the places it can open: one found opens at once, several are
 * listed to choose from, none is said. Only what the signed-in role may reach is looked up or
 * offered: the contract's access lists, through `can`.
 */
import type { RouteLocationRaw } from 'vue-router'
import type { ChannelName, EmissionStatus, EmissionSummary, PlayerSummary } from '../../../../electron/contract'
import type { SearchText } from './searchText'

export type SearchKind = 'ticket' | 'player' | 'claim' | 'emission'
export const SEARCH_KINDS: readonly SearchKind[] = ['ticket', 'player', 'claim', 'emission']

/** Which kinds the role may reach: each needs its lookup's channel and its screen's. */
export type Reach = Record<SearchKind, boolean>

export function reachOf(can: (channel: ChannelName) => boolean): Reach {
  return {
    ticket: can('tickets:get'),
    player: can('players:search') && can('players:last'),
    claim: can('claims:find') && can('claims:get'),
    emission: can('emissions:list') && can('emissions:get'),
  }
}

export const reachesAny = (reach: Reach) => SEARCH_KINDS.some((k) => reach[k])

/** The lookups a text needs for this role (a serial needs none: the inspector says whether its unit exists). */
export interface Lookups {
  /** players:search by this prefix */
  player: string | null
  /** claims:find by this reference */
  reference: string | null
  /** emissions:list, to match the number or code */
  emissions: boolean
}

export function lookupsFor(q: SearchText, reach: Reach): Lookups {
  return {
    player: reach.player ? q.player : null,
    reference: reach.claim ? q.reference : null,
    emissions: reach.emission && (q.emissionNumber !== null || q.code !== null),
  }
}

/** What the lookups answered (an empty answer for a lookup not made). */
export interface Found {
  players: PlayerSummary[]
  /** How many players start with the text, all told (more than listed, at times). */
  playersTotal: number
  /** Serials of the claims paid with the text as reference. */
  claims: string[]
  emissions: EmissionSummary[]
}

export const NOTHING_FOUND: Found = { players: [], playersTotal: 0, claims: [], emissions: [] }

export type Candidate =
  | { kind: 'ticket'; key: string; serial: string }
  | { kind: 'claim'; key: string; serial: string; reference: string }
  | { kind: 'emission'; key: string; emission: number; code: string; status: EmissionStatus; demo: boolean }
  | { kind: 'player'; key: string; player: string; units: number }

/** At most this many players are listed; the others are counted. */
export const MAX_PLAYERS = 5

const sameText = (a: string, b: string) => a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0
const startsWith = (s: string, prefix: string) => sameText(s.slice(0, prefix.length), prefix)

/** Emissions by their number or code: exact matches first, then codes that start with the text. */
export function matchEmissions(q: SearchText, list: readonly EmissionSummary[]): EmissionSummary[] {
  const exact = list.filter((e) => e.emission === q.emissionNumber || (q.code !== null && sameText(e.code, q.code)))
  const partial =
    q.code === null
      ? []
      : list.filter((e) => !exact.includes(e) && e.code.length > q.code!.length && startsWith(e.code, q.code!))
  return [...exact, ...partial]
}

const emissionCandidate = (e: EmissionSummary): Candidate => ({
  kind: 'emission',
  key: `emission:${e.emission}`,
  emission: e.emission,
  code: e.code,
  status: e.status,
  demo: e.demo,
})

const playerCandidate = (p: PlayerSummary): Candidate => ({
  kind: 'player',
  key: `player:${p.player}`,
  player: p.player,
  units: p.units,
})

/**
 * Every candidate, the surest first: the serial, the claim paid with the reference, the emissions
 * (exact before partial), then the players (the one whose id is the text, ignoring case, first).
 */
export function candidatesOf(q: SearchText, found: Found, reach: Reach): Candidate[] {
  const out: Candidate[] = []
  if (reach.ticket && q.serial) out.push({ kind: 'ticket', key: `ticket:${q.serial}`, serial: q.serial })
  if (reach.claim && q.reference)
    for (const serial of found.claims)
      out.push({ kind: 'claim', key: `claim:${serial}`, serial, reference: q.reference })
  if (reach.emission) out.push(...matchEmissions(q, found.emissions).map(emissionCandidate))
  if (reach.player && q.player) {
    const players = [...found.players].sort(
      (a, b) => Number(sameText(b.player, q.text)) - Number(sameText(a.player, q.text)),
    )
    out.push(...players.slice(0, MAX_PLAYERS).map(playerCandidate))
  }
  return out
}

/** Players that start with the text but are not listed. */
export const playersLeftOut = (found: Found, candidates: readonly Candidate[]) =>
  Math.max(0, found.playersTotal - candidates.filter((c) => c.kind === 'player').length)

/** The screen a candidate opens. */
export function routeOf(c: Candidate): RouteLocationRaw {
  switch (c.kind) {
    case 'ticket':
      return { name: 'tickets', params: { serial: c.serial } }
    case 'claim':
      return { name: 'claim', params: { serial: c.serial } }
    case 'emission':
      return { name: 'emission', params: { emission: String(c.emission) } }
    case 'player':
      return { name: 'support', query: { player: c.player } }
  }
}

export type Outcome =
  { kind: 'open'; candidate: Candidate } | { kind: 'choose'; candidates: Candidate[] } | { kind: 'none' }

/** One candidate is opened; several, or one among players left out, are to choose from. */
export function outcomeOf(candidates: Candidate[], leftOut = 0): Outcome {
  if (candidates.length === 0) return { kind: 'none' }
  if (candidates.length === 1 && leftOut === 0) return { kind: 'open', candidate: candidates[0] }
  return { kind: 'choose', candidates }
}
