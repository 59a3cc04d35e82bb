import type { CsvFile } from '../../../electron/contract'

/**
 * Saves a CSV the backend produced, through the browser's download (also in Electron), byte for
 * byte: the office form starts with its own byte-order mark, the machine form has none.
 */
export function downloadCsv(file: CsvFile) {
  const blob = new Blob([file.content], { type: 'text/csv;charset=utf-8' })
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = file.fileName
  document.body.appendChild(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}
