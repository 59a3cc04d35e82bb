/** What a table's count says: "12 émissions", or "3 sur 40 utilisateurs" when a filter leaves out some. */
type Plural = (key: string, named: Record<string, unknown>, plural: number) => string

export type CountedList = 'emissions' | 'users' | 'audit' | 'accounts' | 'units' | 'claims'

export function countText(
  t: Plural,
  int: (n: number) => string,
  list: CountedList,
  shown: number,
  total: number = shown,
): string {
  if (shown === total) return t(`tables.count.${list}`, { n: int(shown) }, shown)
  return t(`tables.countOf.${list}`, { shown: int(shown), n: int(total) }, total)
}

/** A list paged on the server and filtered there: the count of the matches alone. */
export function matchingText(
  t: Plural,
  int: (n: number) => string,
  list: 'audit' | 'units' | 'claims',
  matches: number,
  filtered: boolean,
): string {
  return t(filtered ? `tables.matching.${list}` : `tables.count.${list}`, { n: int(matches) }, matches)
}
