/**
 * The postgres project's global setup (once a run, before its workers start): drops the test
 * databases a crashed run left behind (those whose process no longer runs). A server that does
 * not answer is reported by each test file (engine-setup.ts), not here.
 */
import { checkTestServer, dropOrphanTestLedgers } from './ledger-engine'

export default function setup(): void {
  try {
    checkTestServer()
  } catch {
    return
  }
  const dropped = dropOrphanTestLedgers()
  if (dropped.length) console.log(`dropped ${dropped.length} test database(s) left by an earlier run`)
}
