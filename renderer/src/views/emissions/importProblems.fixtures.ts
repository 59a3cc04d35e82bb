/**
 * What a French sentence about a feed must not hold (the unit tests and the end-to-end test
 * read it): English words, raw ISO times, "block 0". The file's own values are quoted in «…»
 * and left out of the check.
 */
export const ENGLISH_WORDS =
  /(?<!\p{L})(the|must|not|is|are|be|of|and|or|with|before|after|block|line|serial|stake|unit|missing|unknown|field|sale|already|recorded|number|whole|cents|empty|invalid|valid)(?!\p{L})/iu
export const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/
const QUOTED = /«[^»]*»/g

/** The English words, ISO times and "block 0" left in a French sentence, outside its quotes. */
export function leftovers(text: string): string[] {
  const bare = text.replace(QUOTED, '«»')
  const out: string[] = []
  const english = bare.match(new RegExp(ENGLISH_WORDS.source, 'giu'))
  if (english) out.push(...english)
  const iso = bare.match(new RegExp(ISO_TIME.source, 'g'))
  if (iso) out.push(...iso)
  if (/\bblock 0\b/i.test(bare)) out.push('block 0')
  return out
}
