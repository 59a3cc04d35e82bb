/**
 * People compared as people, not as strings (docs/trust.md, "One person, one account"): two names
 * name the same person when their skeletons are equal. The skeleton is Unicode TR39's, on the
 * case-folded compatibility form: NFKC, lower case, the default-ignorable characters (zero-width
 * spaces and joiners, the byte order mark, soft hyphens, bidirectional marks) removed, then each
 * character replaced by its prototype in Unicode's confusables table (`unhomoglyph`, which carries
 * confusables.txt), in NFD before and after. So "admin", "Admin", "аdmin" (Cyrillic а),
 * "adrnin" and "admin\u200b" share one skeleton, and "Hélène" typed composed or decomposed too.
 */
import unhomoglyph from 'unhomoglyph'

/** Unicode's default-ignorable code points that occur in typed text: they show as nothing. */
const IGNORABLE =
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]/gu

/** The skeleton of a name: equal skeletons are one person. */
export function skeleton(name: string): string {
  const folded = name.normalize('NFKC').toLowerCase().replace(IGNORABLE, '').normalize('NFD')
  return unhomoglyph(folded).toLowerCase().normalize('NFD')
}

/** Whether two names (either possibly null: nobody) name the same person. */
export function samePerson(a: string | null | undefined, b: string | null | undefined): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return false
  return skeleton(a) === skeleton(b)
}
