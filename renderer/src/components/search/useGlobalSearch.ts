import { computed, ref } from 'vue'
import { useI18n } from 'vue-i18n'
import { api, ApiError } from '../../api'
import { useAuthStore } from '../../stores/auth'
import { describeError, useErrors } from '../../composables/useErrors'
import { useFormat } from '../../composables/useFormat'
import {
  candidatesOf,
  lookupsFor,
  MAX_PLAYERS,
  NOTHING_FOUND,
  playersLeftOut,
  reachOf,
  type Candidate,
  type Found,
  type Lookups,
} from './candidates'
import { readSearchText, type SearchText } from './searchText'

export interface SearchResult {
  query: SearchText
  candidates: Candidate[]
  /** Players that start with the text, not listed. */
  leftOut: number
  /** A lookup failed (the server out of reach, …): said instead of "nothing matches". */
  failure: string | null
}

/** A text the contract refuses for one lookup (a character a player id never holds): that lookup finds nothing. */
async function quietly<T>(call: () => Promise<T>, none: T): Promise<T> {
  try {
    return await call()
  } catch (e) {
    if (e instanceof ApiError && e.code === 'BAD_ARGUMENTS') return none
    throw e
  }
}

async function lookUp(l: Lookups): Promise<Found> {
  const [players, claims, emissions] = await Promise.all([
    l.player === null
      ? null
      : quietly(() => api.call('players:search', { query: l.player!, page: 1, pageSize: MAX_PLAYERS }), null),
    l.reference === null ? [] : quietly(() => api.call('claims:find', { reference: l.reference! }), []),
    l.emissions ? api.call('emissions:list', {}) : [],
  ])
  return { players: players?.items ?? [], playersTotal: players?.total ?? 0, claims, emissions }
}

/**
 * The header's search: every reading of the text looked up at once, for the kinds the role may
 * reach. Only the latest search counts: an answer that comes back after a newer search began is
 * dropped, and a search of the text already answered or being answered sends nothing more.
 */
export function useGlobalSearch() {
  const auth = useAuthStore()
  const { t } = useI18n()
  const fmt = useFormat()
  const { report } = useErrors()
  const reach = computed(() => reachOf(auth.can))
  const result = ref<SearchResult | null>(null)
  const searching = ref(false)
  let latest = 0
  let pending: { text: string; answer: Promise<SearchResult | null> } | null = null

  async function answer(query: SearchText): Promise<SearchResult> {
    try {
      const found = query.text ? await lookUp(lookupsFor(query, reach.value)) : NOTHING_FOUND
      const candidates = candidatesOf(query, found, reach.value)
      return { query, candidates, leftOut: playersLeftOut(found, candidates), failure: null }
    } catch (e) {
      // a session that ended: said as a message too, and a sign-in asked for
      if (!(e instanceof ApiError) || e.code === 'NOT_SIGNED_IN') report(e)
      return { query, candidates: [], leftOut: 0, failure: describeError(e, t, fmt.int) }
    }
  }

  /** The answer for `input`, or null when a newer search began meanwhile. */
  function search(input: string): Promise<SearchResult | null> {
    const query = readSearchText(input)
    if (result.value?.query.text === query.text) return Promise.resolve(result.value)
    if (pending?.text === query.text) return pending.answer
    const mine = ++latest
    searching.value = true
    const run = answer(query).then((r) => {
      if (mine !== latest) return null
      result.value = r
      searching.value = false
      pending = null
      return r
    })
    pending = { text: query.text, answer: run }
    return run
  }

  /** Forgets the answer (the box was emptied, or a candidate opened). */
  function clear(): void {
    latest++
    pending = null
    searching.value = false
    result.value = null
  }

  return { reach, result, searching, search, clear }
}
