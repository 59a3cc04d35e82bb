/**
 * The vault's open format (README.md beside this file, "The format"): a folder of JSON lines in
 * daily files, one event a line, each line a leaf of an RFC 6962 Merkle tree in the order written.
 * This file holds the names of the folder's files and the shape of each event's line.
 */
import { formatSerial } from '../../../game-core/serial'
import { splitUnitKey } from '../../ledger/unit-key'
import { playModeOf, playStatusOf } from '../../ledger/play-codec'

export const VAULT_FORMAT = 'carats-vault/1'
export const VAULT_FILE = 'vault.json'
export const STATE_FILE = 'state.json'
export const CHECKPOINT_FILE = 'checkpoint'
export const CHECKPOINTS_FILE = 'checkpoints.jsonl'
export const EVENTS_DIR = 'events'
export const COSIGNED_DIR = 'cosigned'
export const LOCK_FILE = 'writer.lock'
/** In an export, or a vault purged: the events before its first day file, summed up (export.ts). */
export const START_FILE = 'start.json'

/** The event files: one per day (UTC) on which the vault received events, named by the day. */
export const eventFileName = (day: string) => `${day}.jsonl`
export const EVENT_FILE_PATTERN = /^(\d{4}-\d{2}-\d{2})\.jsonl$/

/** `vault.json`: what the vault belongs to and the key its checkpoints are signed with. */
export interface VaultDescription {
  format: typeof VAULT_FORMAT
  /** The checkpoints' origin line (and the signing key's name): `carats.vault/<ledger id>`. */
  origin: string
  ledger: string
  /** The signed-note verifier key of the checkpoints (name+id+base64 key): compare it with the ledger's. */
  key: string
  created: string
}

export const originOf = (ledgerId: string) => `carats.vault/${ledgerId}`

/** An audit entry as the ledger holds it (audit/context.ts's AuditRow, the columns the vault needs). */
export interface AuditSource {
  seq: number
  at: string
  actor: string
  action: string
  object: string
  details: string
  hash: string
}

/** A sale as the ledger holds it, with its player's name and its emission's code. */
export interface SaleSource {
  unit_key: number
  code: string
  sale_id: string | null
  player: string
  sold_at: number
  stake_cents: number
  prize_cents: number
  tier: number | null
  play: number | null
  events: Uint8Array | null
  blockSize: number
}

function detailsOf(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** An audit entry's line: its own fields, its details as JSON, and its hash in the ledger's chain. */
export function auditLine(i: number, at: string, e: AuditSource): string {
  return JSON.stringify({
    i,
    at,
    type: 'audit',
    seq: e.seq,
    entryAt: e.at,
    actor: e.actor,
    action: e.action,
    object: e.object,
    details: detailsOf(e.details),
    hash: e.hash,
  })
}

/**
 * A sale's line: the unit's serial, its emission's code, the platform's sale id, the player,
 * the time of sale, stake and prize in cents, the prize tier, and the play as the ledger packs it
 * (its events in base64: one byte per event, then the milliseconds since the one before as an
 * unsigned LEB128 varint; README.md spells it out).
 */
export function saleLine(i: number, at: string, s: SaleSource): string {
  const play =
    s.play === null || s.events === null
      ? null
      : {
          mode: playModeOf(s.play),
          status: playStatusOf(s.play),
          events: Buffer.from(s.events.buffer, s.events.byteOffset, s.events.byteLength).toString('base64'),
        }
  return JSON.stringify({
    i,
    at,
    type: 'sale',
    serial: formatSerial(splitUnitKey(s.unit_key), s.blockSize),
    emission: s.code,
    saleId: s.sale_id,
    player: s.player,
    soldAt: new Date(s.sold_at).toISOString(),
    stakeCents: s.stake_cents,
    prizeCents: s.prize_cents,
    tier: s.tier,
    play,
  })
}

/** The prefix every line starts with: its index in the log, so a line out of place is named at once. */
export const linePrefix = (i: number) => `{"i":${i},`

/** The UTC day of an ISO time, which names the event file a line goes to. */
export const dayOf = (isoTime: string) => isoTime.slice(0, 10)
