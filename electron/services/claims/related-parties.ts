/**
 * The register of related parties: player accounts linked to staff or retailers, each entry with
 * who added it and why. A claim by an account in the register is flagged and needs an auditor's
 * sign-off; the person an account is linked to may take no step on its claims, nor remove the
 * entry (a person, however their name is typed: people.ts). Entries are never deleted: removing one
 * records who, when and why, and the entry stays in the history.
 */
import { AppError, because } from '../../contract/errors'
import type { Relation, RelatedParty } from '../../contract/claims-types'
import type { Db } from '../../ledger/db'
import { lockSubject } from '../../ledger/row-locks'
import type { AuditService } from '../audit'
import { iso, type Actor, type Clock } from '../common'
import { samePerson } from '../people'

interface PartyRow {
  id: number
  player: string
  relation: Relation
  linked_to: string
  reason: string
  added_by: string
  added_at: string
  removed_by: string | null
  removed_at: string | null
  removed_reason: string | null
}

export interface RelatedPartiesService {
  list(includeRemoved: boolean): RelatedParty[]
  /** The account's entries in force (its id matched ignoring case). */
  of(player: string): RelatedParty[]
  add(actor: Actor, input: { player: string; relation: Relation; linkedTo: string; reason: string }): RelatedParty
  remove(actor: Actor, id: number, reason: string): RelatedParty
}

const toParty = (r: PartyRow): RelatedParty => ({
  id: r.id,
  player: r.player,
  relation: r.relation,
  linkedTo: r.linked_to,
  reason: r.reason,
  addedBy: r.added_by,
  addedAt: r.added_at,
  removed: r.removed_by === null ? null : { by: r.removed_by, at: r.removed_at!, reason: r.removed_reason! },
})

/** The SQL test "this player's name is in the register", for queries over claims (p: players). */
export const RELATED_SQL = `EXISTS (SELECT 1 FROM related_parties r WHERE r.player = p.name COLLATE NOCASE AND r.removed_at IS NULL)`

export function createRelatedParties({
  db,
  audit,
  clock,
}: {
  db: Db
  audit: AuditService
  clock: Clock
}): RelatedPartiesService {
  const all = db.prepare('SELECT * FROM related_parties ORDER BY id DESC')
  const inForce = db.prepare('SELECT * FROM related_parties WHERE removed_at IS NULL ORDER BY id DESC')
  const ofPlayer = db.prepare(
    'SELECT * FROM related_parties WHERE player = ? COLLATE NOCASE AND removed_at IS NULL ORDER BY id',
  )
  const byId = db.prepare('SELECT * FROM related_parties WHERE id = ?')
  const insert = db
    .prepare(
      'INSERT INTO related_parties (player, relation, linked_to, reason, added_by, added_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
    )
    .pluck()
  const markRemoved = db.prepare(
    'UPDATE related_parties SET removed_by = ?, removed_at = ?, removed_reason = ? WHERE id = ? AND removed_at IS NULL',
  )

  function entry(id: number): PartyRow {
    const row = byId.get(id) as PartyRow | undefined
    if (!row)
      throw new AppError('NOT_FOUND', `the register has no entry ${id}`, {
        field: 'id',
        ...because('PARTY_NOT_FOUND', { id }),
      })
    return row
  }

  return {
    list: (includeRemoved) => ((includeRemoved ? all : inForce).all() as PartyRow[]).map(toParty),
    of: (player) => (ofPlayer.all(player) as PartyRow[]).map(toParty),

    add(actor, { player, relation, linkedTo, reason }) {
      const id = db
        .transaction(() => {
          lockSubject(db, 'register')
          const same = (ofPlayer.all(player) as PartyRow[]).find(
            (r) => r.linked_to.toLowerCase() === linkedTo.toLowerCase(),
          )
          if (same) {
            throw new AppError(
              'CONFLICT',
              `the register already links ${same.player} to ${same.linked_to} (entry ${same.id})`,
              { field: 'player', ...because('PARTY_EXISTS', { player, linkedTo }) },
            )
          }
          const newId = insert.get(player, relation, linkedTo, reason, actor.name, iso(clock())) as number
          audit.record(actor.name, 'party.add', `player:${player}`, { id: newId, relation, linkedTo, reason })
          return newId
        })
        .immediate()
      return toParty(entry(id))
    },

    remove(actor, id, reason) {
      db.transaction(() => {
        lockSubject(db, 'register')
        const row = entry(id)
        if (row.removed_at !== null)
          throw new AppError(
            'CONFLICT',
            `entry ${id} was removed by ${row.removed_by} on ${row.removed_at}`,
            because('PARTY_REMOVED', { id }),
          )
        if (samePerson(row.linked_to, actor.name)) {
          throw new AppError(
            'FORBIDDEN',
            `entry ${id} links ${row.player} to ${actor.name}: another person removes it`,
            because('PARTY_SELF', { id, name: actor.name }),
          )
        }
        markRemoved.run(actor.name, iso(clock()), reason, id)
        audit.record(actor.name, 'party.remove', `player:${row.player}`, { id, reason })
      }).immediate()
      return toParty(entry(id))
    },
  }
}
