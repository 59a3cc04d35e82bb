import type { ImportLineError, ImportProblem, ImportReasonGroup, ImportRecord } from '../../../../electron/contract'
import { reasonTemplate } from '../../../../electron/contract/import-reasons'
import { describeProblem, type ProblemFormat } from './importProblems'

type Translate = (key: string, params?: Record<string, unknown>, plural?: number) => string

const R = 'imports.reasons'

/** A group's lines in words: "ligne 7", "lignes 3, 4, 5", "lignes 3, 4, …, 12… et 4 autres". */
export function groupLines(g: ImportReasonGroup, t: Translate, int: (n: number) => string): string {
  const list = g.lines.map(int).join(', ')
  const more = g.lineCount - g.lines.length
  const listed = more > 0 ? t(`${R}.moreLines`, { list, n: int(more) }, more) : list
  return t(`${R}.lines`, { list: listed }, g.lineCount)
}

/** How often a group's reason was given: "14 fois sur 1 ligne". */
export function groupCount(g: ImportReasonGroup, t: Translate, int: (n: number) => string): string {
  const times = t(`${R}.times`, { n: int(g.occurrences) }, g.occurrences)
  return `${times} ${t(`${R}.onLines`, { n: int(g.lineCount) }, g.lineCount)}`
}

/** A group's first occurrence, said in the user's language. */
export const groupText = (g: ImportReasonGroup, t: Translate, te: (k: string) => boolean, fmt: ProblemFormat) =>
  describeProblem({ code: g.code, params: g.params }, t, te, fmt)

/** A line's reasons with the same template said once, with how many times (a play that breaks one rule on every event). */
export function lineReasons(l: ImportLineError, t: Translate, te: (k: string) => boolean, fmt: ProblemFormat): string {
  if (!l.problems?.length) return l.reason
  const byTemplate = new Map<string, { first: ImportProblem; n: number }>()
  for (const p of l.problems) {
    const key = reasonTemplate(p)
    const seen = byTemplate.get(key)
    if (seen) seen.n++
    else byTemplate.set(key, { first: p, n: 1 })
  }
  return [...byTemplate.values()]
    .map(({ first, n }) => {
      const text = describeProblem(first, t, te, fmt)
      return n > 1 ? `${text} ${t('imports.repeated', { n: fmt.int(n) })}` : text
    })
    .join(t('emissions.importModal.reasonSeparator'))
}

/** The prize claims an import opened, in words; null for an entry that did not count them (or a refusal). */
export function claimsText(r: ImportRecord, t: Translate, int: (n: number) => string): string | null {
  if (r.result === 'refused' || r.claims === null) return null
  return r.claims === 0 ? t('imports.claims.none') : t('imports.claims.some', { n: int(r.claims) }, r.claims)
}

/** Whether a history row has reasons to show (a refusal of its lines, not of the file as a whole). */
export const hasReasons = (r: ImportRecord): boolean => r.result === 'refused' && (r.reasons?.groups.length ?? 0) > 0
