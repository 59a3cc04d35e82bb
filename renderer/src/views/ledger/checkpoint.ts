/**
 * How the screens say the audit log's checkpoint: one place for its status in words, so that
 * the ledger screen and the audit screen say it the same way.
 */
import type { AuditCheckpointStatus } from '../../../../electron/contract'

/** The statuses under which the log is still whole: it reaches its checkpoint, goes past it, or has no entry yet. */
const SOUND: ReadonlySet<AuditCheckpointStatus> = new Set<AuditCheckpointStatus>(['ok', 'behind', 'none'])

export const checkpointSound = (status: AuditCheckpointStatus): boolean => SOUND.has(status)

/** The message key of a status: a sentence that says what it means. */
export const checkpointStatusKey = (status: AuditCheckpointStatus): string => `ledger.checkpoint.status.${status}`
