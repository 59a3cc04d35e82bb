/**
 * The key ceremonies awaiting a person (the to-do list): one opened and awaiting its second share,
 * for a custodian who did not open it (emissions/ceremony.ts refuses the same person); one
 * committed, awaiting the reveal of the person who committed. Only ceremonies of emissions not yet
 * generated, not abandoned (an abandoned one is no longer in key_ceremonies).
 */
import type { TodoTask } from '../../contract/todo-types'
import type { Db } from '../../ledger/db'
import type { Actor } from '../common'
import { samePerson } from '../people'

/** Who may be the second person (the access of ceremony:commit and ceremony:reveal). */
export const CUSTODIANS: readonly string[] = ['admin', 'operator', 'manager', 'auditor']

interface OpenCeremony {
  emission: number
  protocol: number
  started_by: string
  started_at: string
  committed_by: string | null
  committed_at: string | null
}

const OPEN_CEREMONIES = `SELECT k.emission, k.protocol, k.started_by, k.started_at, k.committed_by, k.committed_at
  FROM key_ceremonies k JOIN emissions e ON e.emission = k.emission
  WHERE k.custodian IS NULL AND e.status = 'created' ORDER BY k.started_at, k.emission`

function taskOf(c: OpenCeremony, actor: Actor): TodoTask | null {
  const base = { subject: String(c.emission), emission: Number(c.emission), prizeCents: null, daysLeft: null }
  if (c.committed_by === null) {
    // protocol 1 is abandoned and opened anew, not contributed to (docs/ui.md, "The key ceremony")
    if (Number(c.protocol) === 1 || samePerson(c.started_by, actor.name)) return null
    return { ...base, kind: 'ceremony-commit', since: c.started_at, detail: c.started_by }
  }
  if (!samePerson(c.committed_by, actor.name)) return null
  return { ...base, kind: 'ceremony-reveal', since: c.committed_at, detail: c.committed_by }
}

export function ceremonyTasks(db: Db, actor: Actor): TodoTask[] {
  if (!CUSTODIANS.includes(actor.role)) return []
  const rows = db.prepare(OPEN_CEREMONIES).all() as OpenCeremony[]
  return rows.map((c) => taskOf(c, actor)).filter((t): t is TodoTask => t !== null)
}
