import type { ImportLineError, ImportProblem } from '../../../../electron/contract'
import { utf8Stop, type Utf8Stop } from '../../../../electron/contract/utf8'
import { serialFeedback } from '../../components/serialFeedback'

type Translate = (key: string, params?: Record<string, unknown>) => string

/** One reason a feed line was refused, in the user's language: money as money, states in words. */
export function describeProblem(p: ImportProblem, t: Translate, money: (cents: number) => string): string {
  const params: Record<string, string | number> = { ...p.params }
  for (const k of ['expectedCents', 'gotCents']) if (typeof params[k] === 'number') params[k] = money(params[k] as number)
  // an emission's or a block's state, in words (a play's status is the feed's own value, quoted)
  if ((p.code === 'NOT_OPEN' || p.code === 'BLOCK_NOT_SELLING') && typeof params.status === 'string') params.status = t(`status.${params.status}`).toLowerCase()
  if (p.code === 'SERIAL') {
    const f = serialFeedback(String(params.serial))
    params.detail = t(f.key, f.params)
  }
  // where JSON.parse gave up, when it said: the column, rather than its English sentence
  if (p.code === 'JSON' && typeof params.column === 'number') return t(`emissions.importModal.problems.${params.end ? 'JSON_END' : 'JSON_AT'}`, params)
  return t(`emissions.importModal.problems.${p.code}`, params)
}

/** A refused line's reasons, in the user's language (its English reason when it came without them). */
export function describeLine(l: ImportLineError, t: Translate, money: (cents: number) => string): string {
  if (!l.problems?.length) return l.reason
  return l.problems.map((p) => describeProblem(p, t, money)).join(t('emissions.importModal.reasonSeparator'))
}

/**
 * A chosen feed file's text, decoded as the importer reads it (UTF-8, a byte order mark dropped),
 * or where it stops being UTF-8: a decoder that replaced the bad bytes would hand the importer
 * a text whose player ids were silently mangled.
 */
export function readFeedText(bytes: Uint8Array): { text: string } | { stop: Utf8Stop } {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) }
  } catch {
    return { stop: utf8Stop(bytes)! }
  }
}
