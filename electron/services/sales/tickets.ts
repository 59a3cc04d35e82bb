/**
 * Any unit by serial: its content (both zones), evaluation, sale and play, and its proof of
 * inclusion in the block's commitment. An unsold unit's content is secret until sold: only an
 * auditor who gives a reason sees it or its proof, and that is audited.
 */
import { AppError, because } from '../../contract/errors'
import type { TicketView } from '../../contract/types'
import { evaluateTicket } from '../../../game-core/evaluate'
import { buildUnitProof, type UnitProof } from '../../../game-core/proof'
import { parseSerial, SerialError, type UnitId } from '../../../game-core/serial'
import type { Db } from '../../ledger/db'
import { unitKey } from '../../ledger/unit-key'
import { unpackPlay } from '../../ledger/play-codec'
import type { AuditService } from '../audit'
import type { Catalog } from '../catalog'
import type { Actor } from '../common'

export interface TicketsService {
  get(viewer: Actor, serial: string, reason?: string): TicketView
  /** The unit's proof of inclusion (commitment version 2 blocks), with the same rules as `get`. */
  proof(viewer: Actor, serial: string, reason?: string): UnitProof
}

export function parseSerialOrThrow(serial: string): UnitId {
  try {
    return parseSerial(serial)
  } catch (e) {
    if (e instanceof SerialError)
      throw new AppError('INVALID_SERIAL', `${e.message}`, {
        field: 'serial',
        details: { code: e.code, ...e.params },
        ...because('SERIAL', { serial }),
      })
    throw e
  }
}

export function createTicketsService({
  db,
  catalog,
  audit,
}: {
  db: Db
  catalog: Catalog
  audit: AuditService
}): TicketsService {
  const saleStmt =
    db.prepare(`SELECT s.sale_id, p.name AS player, s.sold_at, s.stake_cents, s.prize_cents, s.play, s.events
                               FROM sales s JOIN players p ON p.id = s.player_id WHERE s.unit_key = ?`)
  /** The unit, its block and its sale; an unsold one only for an auditor with a reason, audited. */
  function admit(viewer: Actor, serialText: string, reason: string | undefined, proof: boolean) {
    const id = parseSerialOrThrow(serialText)
    const def = catalog.definition(id.emission)
    const block = catalog.blockState(id.emission, id.block)
    if (id.unit >= def.blockSize)
      throw new AppError('INVALID_SERIAL', `unit ${id.unit} is beyond the block's ${def.blockSize} units`, {
        field: 'serial',
        ...because('UNIT_BEYOND', { unit: id.unit, size: def.blockSize }),
      })
    if (block.status === 'pending')
      throw new AppError(
        'ILLEGAL_STATE',
        `block ${id.emission}/${id.block} has not been generated yet: its units do not exist`,
        because('BLOCK_NOT_GENERATED', { emission: id.emission, block: id.block }),
      )
    const sale = saleStmt.get(unitKey(id.emission, id.block, id.unit)) as
      | {
          sale_id: string | null
          player: string
          sold_at: number
          stake_cents: number
          prize_cents: number
          play: number | null
          events: Buffer | null
        }
      | undefined
    const deriver = catalog.deriver(id.emission, id.block, block)
    const ticket = deriver.ticket(id.unit)
    if (!sale) {
      if (viewer.role !== 'auditor') {
        throw new AppError(
          'FORBIDDEN',
          `unit ${ticket.serial} is not sold: its content stays secret until it is sold, and only an auditor may inspect it, with a reason`,
          because('UNSOLD_SECRET', { serial: ticket.serial }),
        )
      }
      const why = reason?.trim() ?? ''
      if (why.length < 3)
        throw new AppError(
          'REASON_REQUIRED',
          `unit ${ticket.serial} is not sold: give a reason (at least 3 characters) to inspect it; it will be logged`,
          { field: 'reason', ...because('UNSOLD_REASON', { serial: ticket.serial }) },
        )
      audit.record(
        viewer.name,
        'ticket.inspect-unsold',
        `unit:${ticket.serial}`,
        proof ? { reason: why, proof: true } : { reason: why },
      )
    }
    return { id, def, block, sale, deriver, ticket }
  }

  return {
    proof(viewer, serialText, reason) {
      const id = parseSerialOrThrow(serialText)
      const row = catalog.block(id.emission, id.block)
      if (row.status !== 'pending' && (row.commitment_version !== 2 || !row.proof_roots)) {
        throw new AppError(
          'ILLEGAL_STATE',
          `block ${id.emission}/${id.block} is committed under version ${row.commitment_version}, whose leaves are whole chunks of 128 units: a proof of one unit would show 127 others. Verify the whole block instead (carats block verify)`,
          because('PROOF_VERSION', { emission: id.emission, block: id.block, version: row.commitment_version }),
        )
      }
      const { deriver } = admit(viewer, serialText, reason, true)
      const definition = catalog.facts(id.emission).definition
      try {
        return buildUnitProof(deriver, id.unit, {
          definition,
          batchRoots: new Uint8Array(row.proof_roots!),
          merkleRoot: row.merkle_root!,
          commitment: row.commitment!,
        })
      } catch (e) {
        throw new AppError('INTERNAL', `the proof of unit ${serialText} cannot be made: ${(e as Error).message}`)
      }
    },

    get(viewer, serialText, reason) {
      const { id, def, sale, ticket } = admit(viewer, serialText, reason, false)
      const evaluation = evaluateTicket(def, ticket)
      if (evaluation.problems.length || evaluation.prizeCents !== ticket.prizeCents) {
        throw new AppError(
          'INTERNAL',
          `unit ${ticket.serial} does not evaluate to its outcome (${evaluation.problems.join('; ') || `${evaluation.prizeCents} ≠ ${ticket.prizeCents} cents`}): verify block ${id.emission}/${id.block}`,
        )
      }
      return {
        serial: ticket.serial,
        emission: id.emission,
        demo: catalog.facts(id.emission).demo === 1,
        block: id.block,
        unit: id.unit,
        sold: !!sale,
        tier: ticket.tier,
        prizeCents: ticket.prizeCents,
        winning: ticket.winning,
        numbers: ticket.numbers,
        amountsCents: ticket.amountsCents,
        matches: evaluation.matches,
        sale: sale
          ? {
              saleId: sale.sale_id ?? ticket.serial,
              player: sale.player,
              soldAt: new Date(sale.sold_at).toISOString(),
              stakeCents: sale.stake_cents,
              prizeCents: sale.prize_cents,
            }
          : null,
        play: sale ? unpackPlay(sale.play, sale.events) : null,
        // as the claim writer decides, from the sale's prize (claims/writer.ts)
        claimDue: !!sale && sale.prize_cents >= catalog.facts(id.emission).claim_threshold_cents,
      }
    },
  }
}
