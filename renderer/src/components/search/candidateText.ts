/**
 * The header search's words: each candidate as a line of the list, what was looked for, and the
 * sentence when nothing matches, in the user's language.
 */
import { emissionNo } from '../../format'
import { SEARCH_KINDS, type Candidate, type Reach, type SearchKind } from './candidates'
import type { SearchText } from './searchText'

type Translate = (key: string, params?: Record<string, unknown>, plural?: number) => string

export interface CandidateText {
  /** What it is: "Ticket", "Joueur", … */
  kind: string
  /** Which one: its serial, id, emission. */
  title: string
  /** A word more: where it opens, the reference, the units bought. */
  detail: string
  demo: boolean
}

export function candidateText(c: Candidate, t: Translate, int: (n: number) => string): CandidateText {
  const kind = t(`search.kind.${c.kind}`)
  switch (c.kind) {
    case 'ticket':
      return { kind, title: c.serial, detail: t('search.detail.ticket'), demo: false }
    case 'claim':
      return { kind, title: c.serial, detail: t('search.detail.claim', { reference: c.reference }), demo: false }
    case 'emission': {
      const title = t('emission.title', { n: emissionNo(c.emission) })
      return { kind, title: c.code ? `${title} · ${c.code}` : title, detail: t(`status.${c.status}`), demo: c.demo }
    }
    case 'player':
      return { kind, title: c.player, detail: t('search.detail.player', { n: int(c.units) }, c.units), demo: false }
  }
}

/** The kinds this role may search, said as a list ("numéro de série, joueur ou émission"). */
export function kindsText(reach: Reach, t: Translate, locale: string, words: 'what' | 'searched'): string {
  const kinds = SEARCH_KINDS.filter((k: SearchKind) => reach[k]).map((k) => t(`search.${words}.${k}`))
  return new Intl.ListFormat(locale, { type: 'disjunction' }).format(kinds)
}

/** Nothing matches: the text, what was looked for, and what is wrong with a serial mistyped. */
export function noneText(q: SearchText, reach: Reach, t: Translate, locale: string): string {
  const none = t('search.none', { text: q.text, kinds: kindsText(reach, t, locale, 'searched') })
  if (!q.serialProblem || !reach.ticket) return none
  const params: Record<string, unknown> = { ...q.serialProblem.params }
  if (typeof params.field === 'string') params.field = t(`serial.field.${params.field}`)
  const detail = t(q.serialProblem.key, params)
  return `${none} ${t('search.serialProblem', { detail: detail.charAt(0).toLowerCase() + detail.slice(1) })}`
}
