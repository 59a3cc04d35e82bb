/**
 * A claim's winner, document and payment as the screens and the receipt say them: masked as the
 * backend gives them (initials and year of birth, the document's last four characters).
 */
import type { Claim } from '../../../../electron/contract/claims-types'

type Translate = (key: string, params?: Record<string, unknown>) => string

/** "J. M., né(e) en 1980"; the initials alone when the year was not recorded; null when nothing was. */
export function winnerText(t: Translate, c: Pick<Claim, 'winner'>): string | null {
  if (!c.winner) return null
  const { initials, birthYear } = c.winner
  return birthYear ? t('claims.facts.winnerMasked', { initials, year: birthYear }) : initials
}

/** "Passeport n° …2345" (the number as the backend masks it), or null before the identity check. */
export function documentText(t: Translate, c: Pick<Claim, 'verified'>): string | null {
  if (!c.verified) return null
  const document = t(`claims.documents.${c.verified.document}`)
  return t('claims.facts.documentMasked', { document, reference: c.verified.reference })
}

/** "Virement", "Chèque"; null when the claim is not paid or its method was not recorded. */
export function methodText(t: Translate, c: Pick<Claim, 'paid'>): string | null {
  return c.paid?.method ? t(`claims.methods.${c.paid.method}`) : null
}

/** "3 jours" pending, for an open claim (`int` writes the number); null once closed. */
export function daysPendingText(
  t: (key: string, params: Record<string, unknown>, plural: number) => string,
  int: (n: number) => string,
  c: Pick<Claim, 'daysPending'>,
): string | null {
  return c.daysPending === null ? null : t('claims.facts.days', { n: int(c.daysPending) }, c.daysPending)
}
