/**
 * The change feed: what the hosts push to open screens when the ledger changes,
 * whichever workstation changed it. A change names only a topic and the id of what changed (an
 * emission's number, a claim's serial, an account's id): never data. A screen that hears of a
 * change it shows reads it again through its usual channel, where the caller's role is checked.
 *
 * The changes come from the audit log (every change of state appends an entry, in the change's own
 * transaction: services/changes), so every host of a team ledger sees every other's.
 */
import { mayCall, type Role } from './define'

export const CHANGE_TOPICS = ['ceremony', 'emissions', 'claims', 'imports', 'users', 'parties', 'session'] as const
export type ChangeTopic = (typeof CHANGE_TOPICS)[number]

export interface Change {
  /** The audit entry that made the change (its sequence number). */
  seq: number
  topic: ChangeTopic
  /** An emission's number, a claim's serial, an account's id (as text); null: the topic as a whole. */
  id: string | null
}

/** Whom a change is told to: the session's role and account. */
export interface ChangeViewer {
  role: Role
  userId: number
}

/** The channel that reads each topic: whoever may call it hears of the topic's changes. */
export const TOPIC_CHANNEL = {
  ceremony: 'ceremony:get',
  emissions: 'emissions:get',
  claims: 'claims:get',
  imports: 'sales:imports',
  users: 'users:list',
  parties: 'parties:list',
} as const

const STAFF = ['admin', 'operator', 'support', 'manager', 'auditor'] as const
/**
 * Who hears of each topic: the access of its channel in the contract (held to it by
 * changes.test.ts; written out here so that the preload and the stream need not load the
 * contract's schemas). `session` is told only to the account it names, below.
 */
export const TOPIC_READERS: Record<Exclude<ChangeTopic, 'session'>, readonly Role[]> = {
  ceremony: STAFF,
  emissions: STAFF,
  claims: ['admin', 'support', 'manager', 'auditor'],
  imports: ['admin', 'operator', 'manager', 'auditor'],
  users: ['admin', 'auditor'],
  parties: ['admin', 'support', 'manager', 'auditor'],
}

/** Whether `viewer` may hear of `change`: its role reads the topic, or the change is to its own account. */
export function changeVisibleTo(change: Change, viewer: ChangeViewer): boolean {
  if (change.topic === 'session') return change.id === String(viewer.userId)
  return mayCall(TOPIC_READERS[change.topic], viewer.role)
}

/** The changes `viewer` may hear of, in order. */
export function changesFor(changes: readonly Change[], viewer: ChangeViewer): Change[] {
  return changes.filter((c) => changeVisibleTo(c, viewer))
}

/** A change as it arrives from outside (a stream, the preload): checked, so a screen reads only what the contract says. */
export function isChange(v: unknown): v is Change {
  if (v === null || typeof v !== 'object') return false
  const c = v as Partial<Change>
  return (
    typeof c.seq === 'number' &&
    typeof c.topic === 'string' &&
    (CHANGE_TOPICS as readonly string[]).includes(c.topic) &&
    (c.id === null || typeof c.id === 'string')
  )
}

/** The browser host's stream of changes (server-sent events; host/host-events.ts). */
export const EVENTS_PATH = '/events'
/** The IPC channels of the same changes in Electron: the page asks for them, the main process sends them. */
export const WATCH_CHANNEL = 'carats:watch'
export const CHANGES_CHANNEL = 'carats:changes'
