import type { CsvFile } from '../../../electron/contract'

/**
 * Saves a CSV the backend produced, through the browser's download (also in Electron), byte for
 * byte: the office form starts with its own byte-order mark, the machine form has none.
 */
export function downloadCsv(file: CsvFile) {
  downloadText(file, 'text/csv;charset=utf-8')
}

/** Saves a text the backend produced (a CSV, a sample feed) under its file name, through the browser's download. */
export function downloadText(file: { fileName: string; content: string }, type: string): void {
  const url = URL.createObjectURL(new Blob([file.content], { type }))
  const a = document.createElement('a')
  a.href = url
  a.download = file.fileName
  document.body.appendChild(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}
