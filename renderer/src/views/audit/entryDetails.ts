/**
 * An audit entry's details as a person reads them: the JSON the log keeps, indented, its keys in
 * the order written. Text that is not JSON (an entry written by another version) is shown as is.
 */
export function readableDetails(details: string): string {
  if (!details.trim()) return ''
  try {
    return JSON.stringify(JSON.parse(details), null, 2)
  } catch {
    return details
  }
}
