import type { CsvFile } from '../../../electron/contract'

/** Saves a CSV the backend produced, through the browser's download (also in Electron). */
export function downloadCsv(file: CsvFile) {
  // The BOM lets spreadsheet programs read the accents of French text correctly.
  const blob = new Blob(['\ufeff', file.content], { type: 'text/csv;charset=utf-8' })
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = file.fileName
  document.body.appendChild(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}
