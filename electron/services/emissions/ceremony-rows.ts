/**
 * A key ceremony's rows (key_ceremonies, key_ceremony_abandons: migrations 9 and 14) as the
 * contract shows them, the statements that read and write them, and the custodian's share as the
 * service takes it (hex drawn in their window, or dice).
 */
import { diceProblemText, diceRolls, MIN_DICE_ROLLS, shareFromDice } from '../../../game-core/seeding'
import { AppError, because } from '../../contract/errors'
import type { AbandonedCeremony, KeyCeremony } from '../../contract/types'
import { nodePrimitives } from '../../crypto/node-primitives'
import type { Db } from '../../ledger/db'

export interface CeremonyRow {
  emission: number
  protocol: number
  server_share: Buffer | null
  server_hash: string | null
  started_by: string
  started_at: string
  committed_by: string | null
  custodian_commit: string | null
  committed_at: string | null
  custodian: string | null
  custodian_share: Buffer | null
  custodian_hash: string | null
  custodian_source: 'random' | 'dice' | null
  contributed_at: string | null
}

interface AbandonRow {
  protocol: number
  started_by: string
  started_at: string
  server_hash: string | null
  committed_by: string | null
  custodian_commit: string | null
  abandoned_by: string
  abandoned_at: string
  reason: string
}

function stateOf(r: CeremonyRow): KeyCeremony['state'] {
  if (r.custodian !== null) return 'complete'
  if (Number(r.protocol) === 1) return 'awaiting-custodian'
  return r.committed_by === null ? 'awaiting-commitment' : 'awaiting-reveal'
}

const protocolOf = (p: number): 1 | 2 => (Number(p) === 1 ? 1 : 2)

export const toAbandoned = (a: AbandonRow): AbandonedCeremony => ({
  protocol: protocolOf(a.protocol),
  startedBy: a.started_by,
  startedAt: a.started_at,
  serverHash: a.server_hash,
  committedBy: a.committed_by,
  custodianCommit: a.custodian_commit,
  abandonedBy: a.abandoned_by,
  abandonedAt: a.abandoned_at,
  reason: a.reason,
})

export const toCeremony = (r: CeremonyRow, abandoned: AbandonedCeremony[]): KeyCeremony => ({
  emission: Number(r.emission),
  protocol: protocolOf(r.protocol),
  state: stateOf(r),
  serverHash: r.server_hash,
  startedBy: r.started_by,
  startedAt: r.started_at,
  committedBy: r.committed_by,
  custodianCommit: r.custodian_commit,
  committedAt: r.committed_at,
  custodian: r.custodian,
  custodianHash: r.custodian_hash,
  custodianSource: r.custodian_source,
  contributedAt: r.contributed_at,
  abandoned,
})

/** The statements of the ceremony service, prepared once. */
export function ceremonyStatements(db: Db) {
  return {
    read: db.prepare('SELECT * FROM key_ceremonies WHERE emission = ?'),
    abandons: db.prepare('SELECT * FROM key_ceremony_abandons WHERE emission = ? ORDER BY id'),
    open: db.prepare('INSERT INTO key_ceremonies (emission, protocol, started_by, started_at) VALUES (?, 2, ?, ?)'),
    commit:
      db.prepare(`UPDATE key_ceremonies SET committed_by = ?, custodian_commit = ?, committed_at = ?, server_share = ?, server_hash = ?
                        WHERE emission = ? AND protocol = 2 AND committed_by IS NULL`),
    reveal:
      db.prepare(`UPDATE key_ceremonies SET custodian = ?, custodian_share = ?, custodian_hash = ?, custodian_source = ?, contributed_at = ?
                        WHERE emission = ? AND protocol = 2 AND committed_by IS NOT NULL AND custodian IS NULL`),
    keepAbandoned: db.prepare(`INSERT INTO key_ceremony_abandons
      (emission, protocol, started_by, started_at, server_hash, committed_by, custodian_commit, committed_at, abandoned_by, abandoned_at, reason)
      SELECT emission, protocol, started_by, started_at, server_hash, committed_by, custodian_commit, committed_at, ?, ?, ? FROM key_ceremonies
      WHERE emission = ? AND custodian IS NULL`),
    drop: db.prepare('DELETE FROM key_ceremonies WHERE emission = ? AND custodian IS NULL'),
  }
}

export type CeremonyStatements = ReturnType<typeof ceremonyStatements>

export interface CustodianShare {
  share: Uint8Array
  source: 'random' | 'dice'
}

/** The custodian's 32 bytes: given in hex (drawn in their window), or from their dice. */
export function custodianShare(input: { share?: string; dice?: string }): CustodianShare {
  if (input.share !== undefined) return { share: new Uint8Array(Buffer.from(input.share, 'hex')), source: 'random' }
  const checked = diceRolls(input.dice ?? '')
  if ('problem' in checked) {
    const reason =
      checked.problem === 'not-a-roll'
        ? because('DICE_NOT_A_ROLL', { char: checked.char })
        : because('DICE_TOO_FEW', { count: checked.count, min: MIN_DICE_ROLLS })
    throw new AppError('BAD_ARGUMENTS', `dice: ${diceProblemText(checked)}`, { ...reason, field: 'dice' })
  }
  return { share: shareFromDice(nodePrimitives, checked.rolls), source: 'dice' }
}

/** A commitment as typed: 64 hex digits, kept in lower case as the hashes are. */
export function commitmentOf(text: string): string {
  if (!/^[0-9a-fA-F]{64}$/.test(text)) {
    throw new AppError('BAD_ARGUMENTS', 'commitment: must be 64 hexadecimal digits (SHA-256 of your share)', {
      field: 'commitment',
    })
  }
  return text.toLowerCase()
}
