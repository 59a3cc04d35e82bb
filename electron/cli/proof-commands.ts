/**
 * `ticket proof` and `proof verify`: a unit's proof of inclusion in its block's commitment
 * (game-core/DERIVATION.md §8), and its check from the file alone. As `ticket show`, the CLI acts
 * as an auditor: an unsold unit's proof needs --reason, and is audited.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { verifyUnitProof, type UnitProof } from '../../game-core/proof'
import { nodePrimitives } from '../crypto/node-primitives'
import { UsageError, type Command } from './io'
import { options, print, withBackend } from './command-kit'
import { cliReason } from './text-args'

const ticketProof: Command = (ctx) =>
  withBackend(ctx, (b) => {
    const { values, pos } = options(ctx, { reason: { type: 'string' }, out: { type: 'string' } }, 1)
    if (!pos[0]) throw new UsageError('name the serial: carats ticket proof EEEE-BBB-UUUUUUU-K [--out <file>]')
    const proof = b.services.tickets.proof({ name: b.actor.name, role: 'auditor' }, pos[0], cliReason(values.reason))
    const text = JSON.stringify(proof, null, 2) + '\n'
    if (values.out) {
      writeFileSync(values.out, text)
      print(
        ctx,
        { file: values.out, serial: proof.serial, commitment: proof.commitment },
        () => `proof of ${proof.serial} written to ${values.out}; it leads to commitment ${proof.commitment}`,
      )
    } else {
      ctx.io.out(ctx.json ? JSON.stringify(proof) + '\n' : text)
    }
    return 0
  })

function readProof(file: string): UnitProof {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
  try {
    return JSON.parse(text) as UnitProof
  } catch {
    throw new UsageError(`${file} is not JSON: give the file that carats ticket proof wrote`)
  }
}

const proofVerify: Command = async (ctx) => {
  const { pos } = options(ctx, {}, 1)
  if (!pos[0]) throw new UsageError('name the proof file: carats proof verify <file>')
  const check = verifyUnitProof(nodePrimitives, readProof(pos[0]))
  print(ctx, check, () =>
    check.valid
      ? `${check.serial}: the proof holds; the unit's content is its record, and the record is in the block committed as\n${check.commitment}\ncompare it with the block's commitment on the emission's certificate`
      : `${check.serial || pos[0]}: the proof FAILS: ${check.problems.join('; ')}`,
  )
  return check.valid ? 0 : 1
}

export const proofCommands: Record<string, Command> = {
  'ticket proof': ticketProof,
  'proof verify': proofVerify,
}
