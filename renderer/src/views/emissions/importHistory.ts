import { ref } from 'vue'
import type { ImportRecord } from '../../../../electron/contract'

/** Bumped when an import ends (imported or refused): the history shown reloads. */
export const importsChanged = ref(0)
export const noteImport = () => importsChanged.value++

type Translate = (key: string, params?: Record<string, unknown>) => string

/** An import's result in words: imported (with its counts), already recorded, or refused (with its count of bad lines, or why the file was). */
export function importResultText(r: ImportRecord, t: Translate, int: (n: number) => string): string {
  const H = 'emissions.importHistory.result'
  if (r.result === 'already') return t(`${H}.already`, { lines: int(r.lines ?? r.alreadyImported) })
  if (r.result === 'imported')
    return t(`${H}.${r.alreadyImported ? 'importedSome' : 'imported'}`, {
      imported: int(r.imported),
      already: int(r.alreadyImported),
    })
  if (r.refusal) return t(`${H}.refusedFile`, { why: t(`${H}.why.${r.refusal}`) })
  return t(`${H}.refused`, { n: int(r.badLines) })
}
