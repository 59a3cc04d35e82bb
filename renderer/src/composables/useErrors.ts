import { useMessage } from 'naive-ui'
import { useI18n } from 'vue-i18n'
import { useRouter } from 'vue-router'
import { ApiError, TransportError } from '../api'
import type { ErrorReason } from '../../../electron/contract'
import { useAuthStore } from '../stores/auth'
import { useFormat } from './useFormat'
import { serialFeedback } from '../components/serialFeedback'

type Translate = (key: string, params?: Record<string, unknown>, plural?: number) => string

/** Counts that a reason names, written as numbers in the user's language. */
const COUNTS = ['unit', 'size', 'unsold', 'sales', 'max']

/** A claim's reasons (CLAIM_*): its status, its steps and why a unit has none, in words (claims.*). */
function claimWords(key: string, p: Record<string, unknown>, t: Translate): void {
  if (!key.startsWith('CLAIM_')) return
  if (typeof p.status === 'string') p.status = t(`claims.status.${p.status}`).toLowerCase()
  for (const k of ['step', 'earlier']) if (typeof p[k] === 'string') p[k] = t(`claims.steps.${p[k] as string}`)
  if (key === 'CLAIM_NONE' && typeof p.why === 'string') p.why = t(`claims.none.${p.why}`, p)
}

/** Why the server refused (or a task failed), in the user's language: its reason when it gave one, else its English sentence. */
export function describeReason(
  e: { reason?: ErrorReason; message: string },
  t: Translate,
  int: (n: number) => string = String,
  money: (cents: number) => string = (c) => `${c / 100} €`,
): string {
  const r = e.reason
  if (!r) return e.message.replace(/\.$/, '')
  const p: Record<string, unknown> = { ...r.params }
  for (const k of COUNTS) if (typeof p[k] === 'number') p[k] = int(p[k] as number)
  // amounts (prizeCents, thresholdCents…) as money
  for (const k of Object.keys(p)) if (/(^c|C)ents$/.test(k) && typeof p[k] === 'number') p[k] = money(p[k] as number)
  claimWords(r.key, p, t)
  if (typeof p.status === 'string' && !r.key.startsWith('CLAIM_')) p.status = t(`status.${p.status}`).toLowerCase()
  if (typeof p.action === 'string') p.action = t(`reasons.actions.${p.action}`)
  if (typeof p.kind === 'string') p.kind = t(`jobs.${p.kind}`)
  if (typeof p.role === 'string') p.role = t(`roles.${p.role}`)
  if (typeof p.state === 'string') p.state = t(`reasons.taskStates.${p.state}`)
  // a refused character's kind (contract/text.ts), in words
  if (typeof p.problem === 'string') p.problem = t(`reasons.textProblems.${p.problem}`)
  // a mistyped serial, explained as the ticket inspector explains it while it is typed
  if (r.key === 'SERIAL') {
    const f = serialFeedback(String(p.serial))
    p.detail = t(f.key, f.params)
  }
  // a list of blocks ("2, 3") says "block" or "blocks" as it holds one or more
  const blocks = typeof p.blocks === 'string' ? p.blocks.split(',').length : 1
  p.hint =
    typeof p.hint === 'string'
      ? t('reasons.hintSeparator') + t(`reasons.hints.${p.hint}`, { blocks: p.blocks ?? '' }, blocks)
      : ''
  return t(`reasons.${r.key}`, p, blocks)
}

/** Reasons that say more than their code's general sentence, which names no detail: said on their own. */
const SAYS_MORE = new Set([
  'ACCOUNT_DEACTIVATED',
  'UNSOLD_SECRET',
  'UNSOLD_REASON',
  'WITHDRAW_REASON',
  'SERIAL',
  'CLAIM_THRESHOLD_RANGE',
  'CLAIM_DAYS_RANGE',
  'CLAIM_MINOR',
  'CLAIM_ASSIGNEE',
  'CLAIM_EXPIRED',
  'CLAIM_SAME_PERSON',
  'CLAIM_CONFLICT',
  'CLAIM_SIGN_OFF',
])

/** An error as a sentence that says what to do, in the user's language. */
export function describeError(
  e: unknown,
  t: Translate,
  int?: (n: number) => string,
  money?: (cents: number) => string,
): string {
  if (e instanceof ApiError) {
    const detail = describeReason(e, t, int, money)
    if (e.reason && SAYS_MORE.has(e.reason.key))
      return `${detail.charAt(0).toUpperCase()}${detail.slice(1)}${detail.endsWith('.') ? '' : '.'}`
    if (e.code === 'BAD_ARGUMENTS' && e.field) return t('errors.BAD_ARGUMENTS_FIELD', { field: e.field, detail })
    return t(`errors.${e.code}`, { detail })
  }
  if (e instanceof TransportError) return t('errors.unreachable')
  return t('errors.unexpected', { detail: e instanceof Error ? e.message : String(e) })
}

/** Shows an api error as a message; an expired session sends the user back to sign in. */
export function useErrors() {
  const message = useMessage()
  const { t } = useI18n()
  const router = useRouter()
  const auth = useAuthStore()
  const fmt = useFormat()

  function report(e: unknown) {
    message.error(describeError(e, t, fmt.int, fmt.money), { duration: 8000, closable: true })
    if (e instanceof ApiError && e.code === 'NOT_SIGNED_IN') {
      auth.forgetSession()
      void router.push({ name: 'login' })
    }
  }

  /** Runs an action, reporting its error; returns undefined when it failed. */
  async function attempt<T>(action: () => Promise<T>): Promise<T | undefined> {
    try {
      return await action()
    } catch (e) {
      report(e)
      return undefined
    }
  }

  return { report, attempt }
}
