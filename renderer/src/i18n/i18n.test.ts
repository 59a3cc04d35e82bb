import { describe, expect, it } from 'vitest'
import fr from './fr'
import { createAppI18n } from '.'
import en from './en'
import { AUDIT_ACTIONS, IMPORT_PROBLEM_CODES } from '../../../electron/contract/types'
import { ERROR_ACTIONS, ERROR_HINTS, ERROR_REASON_KEYS } from '../../../electron/contract/errors'

type Tree = { [key: string]: string | Tree }

/** Every message as 'a.b.c' → text. */
function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>()
  for (const [k, v] of Object.entries(tree)) {
    const key = prefix ? `${prefix}.${k}` : k
    if (typeof v === 'string') out.set(key, v)
    else for (const [kk, vv] of flatten(v, key)) out.set(kk, vv)
  }
  return out
}

/** A message's placeholders, each once (a plural's forms repeat them). */
const placeholders = (text: string) => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort()

const messages = { fr: flatten(fr), en: flatten(en) }

// The renderer's sources, to check the message keys they name literally.
const sources = import.meta.glob(['../**/*.ts', '../**/*.vue', '!../**/*.test.ts', '!./*.ts'], {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>

describe('messages', () => {
  it('have the same keys in French and English', () => {
    const missingInEn = [...messages.fr.keys()].filter((k) => !messages.en.has(k))
    const missingInFr = [...messages.en.keys()].filter((k) => !messages.fr.has(k))
    expect({ missingInEn, missingInFr }).toEqual({ missingInEn: [], missingInFr: [] })
  })

  it('use the same placeholders in both languages, and none is empty', () => {
    const differ = [...messages.fr]
      .filter(([k, v]) => messages.en.has(k) && placeholders(v).join() !== placeholders(messages.en.get(k)!).join())
      .map(([k]) => k)
    const empty = [...messages.fr, ...messages.en].filter(([, v]) => !v.trim()).map(([k]) => k)
    expect({ differ, empty }).toEqual({ differ: [], empty: [] })
  })

  it('hold every key the screens name', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(20)
    const unknown = new Set<string>()
    for (const [file, text] of Object.entries(sources)) {
      for (const m of text.matchAll(/\bt\(\s*'([\w.]+)'/g))
        if (m[1].includes('.') && !messages.fr.has(m[1])) unknown.add(`${m[1]} (${file})`)
    }
    expect([...unknown]).toEqual([])
  })

  it('say every reason a service gives for a refusal, with its steps and hints', () => {
    const keys = [
      ...ERROR_REASON_KEYS.map((k) => `reasons.${k}`),
      ...ERROR_ACTIONS.map((a) => `reasons.actions.${a}`),
      ...ERROR_HINTS.map((h) => `reasons.hints.${h}`),
    ]
    expect(keys.filter((k) => !messages.fr.has(k) || !messages.en.has(k))).toEqual([])
  })

  it('name every action of the audit log', () => {
    const keys = AUDIT_ACTIONS.map((a) => `audit.actions.${a}`)
    expect(keys.filter((k) => !messages.fr.has(k) || !messages.en.has(k))).toEqual([])
    // and vue-i18n finds them by that path (the codes have hyphens)
    const { t } = createAppI18n('fr').global
    expect(t('audit.actions.ticket.inspect-unsold')).toBe('Unité invendue inspectée')
  })

  it('say every reason the importer gives for a bad line', () => {
    const missing = IMPORT_PROBLEM_CODES.map((c) => `emissions.importModal.problems.${c}`).filter(
      (k) => !messages.fr.has(k) || !messages.en.has(k),
    )
    expect(missing).toEqual([])
  })

  it('say a count in the singular or the plural, never "(s)"', () => {
    const crutch = [...messages.fr, ...messages.en].filter(([, v]) => /\w\(s\)/i.test(v)).map(([k]) => k)
    expect(crutch).toEqual([])
  })

  it('put 0 and 1 in the singular in French, 0 in the plural in English', () => {
    const fr = createAppI18n('fr').global
    const en = createAppI18n('en').global
    const note = (t: typeof fr.t, n: number) => t('certificate.provisionalNote', { committed: n, total: 3 }, n)
    expect(note(fr.t, 0)).toMatch(/^Certificat provisoire : 0 bloc engagé sur 3\./)
    expect(note(fr.t, 1)).toMatch(/^Certificat provisoire : 1 bloc engagé sur 3\./)
    expect(note(fr.t, 2)).toMatch(/^Certificat provisoire : 2 blocs engagés sur 3\./)
    expect(en.t('reasons.hints.blocksNotGenerated', { blocks: '2' }, 1)).toBe('block 2 was never generated')
    expect(en.t('reasons.hints.blocksNotGenerated', { blocks: '2, 3' }, 2)).toBe('blocks 2, 3 were never generated')
    // three forms: none, one, more
    expect(fr.t('claims.totals.count', { n: 0 }, 0)).toBe('aucune')
    expect(fr.t('claims.totals.count', { n: 1 }, 1)).toBe('1 réclamation')
    expect(fr.t('claims.totals.count', { n: 4 }, 4)).toBe('4 réclamations')
  })
})
