import { computed, ref } from 'vue'
import { useI18n } from 'vue-i18n'
import type { TicketView } from '../../../../electron/contract'
import { api, ApiError } from '../../api'
import { describeError, useErrors } from '../../composables/useErrors'
import { useFormat } from '../../composables/useFormat'
import { blockNo, emissionNo } from '../../format'
import type { LookupAnswer } from '../../components/serialFeedback'

/** One lookup of one serial, and where it stands. */
export type Lookup =
  | { serial: string; state: 'searching'; withReason: boolean }
  | { serial: string; state: 'found'; ticket: TicketView }
  /** An unsold unit an auditor may inspect once a reason is given. */
  | { serial: string; state: 'reason' }
  | { serial: string; state: 'refused'; message: string }

/**
 * The ticket inspector's lookups. Only the latest counts: a new lookup forgets the previous
 * answer at once (its ticket is never shown under the new serial), and an answer that comes
 * back after a newer lookup began is dropped. A second press while the same serial is being
 * looked up sends nothing.
 */
export function useTicketLookup() {
  const { t } = useI18n()
  const fmt = useFormat()
  const { report } = useErrors()
  const lookup = ref<Lookup | null>(null)
  let latest = 0

  function refusal(serial: string, e: unknown, withReason: boolean): Lookup {
    if (e instanceof ApiError && e.code === 'REASON_REQUIRED' && !withReason) return { serial, state: 'reason' }
    // a session that ended, a server out of reach: said as a message too, and a sign-in asked for
    if (!(e instanceof ApiError) || e.code === 'NOT_SIGNED_IN') report(e)
    return { serial, state: 'refused', message: describeError(e, t, fmt.int) }
  }

  async function find(serial: string, reason?: string): Promise<void> {
    const now = lookup.value
    if (now?.serial === serial && now.state === 'searching') return
    const mine = ++latest
    lookup.value = { serial, state: 'searching', withReason: reason !== undefined }
    let answer: Lookup
    try {
      const ticket = await api.call('tickets:get', reason !== undefined ? { serial, reason } : { serial })
      answer = { serial, state: 'found', ticket }
    } catch (e) {
      answer = refusal(serial, e, reason !== undefined)
    }
    if (mine === latest) lookup.value = answer
  }

  /** Forgets the answer (the field holds no serial to look up). */
  function clear(): void {
    latest++
    lookup.value = null
  }

  /** The answer as the serial field says it. */
  const answer = computed<LookupAnswer | null>(() => {
    const l = lookup.value
    if (!l) return null
    if (l.state === 'searching')
      return { serial: l.serial, state: 'searching', text: t('lookup.searching', { serial: l.serial }) }
    if (l.state === 'reason') return { serial: l.serial, state: 'reason', text: t('lookup.reason') }
    if (l.state === 'refused') return { serial: l.serial, state: 'refused', text: l.message }
    const k = l.ticket
    const sold = t(k.sold ? 'lookup.sold' : 'lookup.unsold')
    return {
      serial: l.serial,
      state: 'found',
      // numbered as the serial and the ticket's page write them (0002, 001)
      text: t('lookup.found', {
        emission: emissionNo(k.emission),
        block: blockNo(k.block),
        unit: fmt.int(k.unit),
        sold,
      }),
    }
  })

  return { lookup, answer, find, clear }
}
