/**
 * Texts typed on the command line under the contract's one text rule (contract/text.ts): a name
 * or a reason holding a control, invisible or bidirectional formatting character is refused with
 * its option, the character and its place; one that passes is composed (NFC), as the screens'
 * texts are. (A command line cannot carry a lone surrogate or a NUL; the audit log refuses them
 * anyway, services.audit.)
 */
import { AppError, because } from '../contract/errors'
import { describeTextProblem, textProblem } from '../contract/text'

/** `value` of `option` (`--name`) under the text rule: `what` names it in the sentence ("a name"); a reason is multi-line. */
export function cliText(value: string, option: string, what: string, multiline = false): string {
  const text = multiline ? value.replace(/\r\n?/g, '\n') : value
  const p = textProblem(text, { multiline })
  if (!p) return text.normalize('NFC')
  const field = option.replace(/^--/, '')
  throw new AppError('BAD_ARGUMENTS', `${option}: ${describeTextProblem(p, what)}`, {
    field,
    ...because('TEXT_REFUSED', { field, char: p.char, position: p.position, problem: p.kind }),
  })
}

/** An optional reason under the rule. */
export const cliReason = (value: string | undefined, option = '--reason'): string | undefined =>
  value === undefined ? undefined : cliText(value, option, 'a reason', true)
