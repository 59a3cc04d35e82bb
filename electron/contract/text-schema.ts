/**
 * The text rule (text.ts) on the contract's string schemas: a text that holds a refused character
 * is refused with the field, the character and its place (BAD_ARGUMENTS, reason TEXT_REFUSED);
 * one that passes is stored in composed form (NFC). Pure: the renderer loads the contract too.
 */
import { z } from 'zod'
import { describeTextProblem, textProblem, type TextProblem, type TextRule } from './text'

export interface CleanTextOptions extends TextRule {
  /** what the field holds, for the sentence: "a name", "a reason"… */
  what?: string
  /** keep the text as typed (a file's path, a URL): only refuse */
  keep?: boolean
}

/** The issue param that carries a text's problem, for the dispatcher's reason. */
const TEXT_PARAM = 'textProblem'

/** `s` under the text rule: refused characters named, then composed (NFC) unless `keep`; a multi-line text's CR LF as LF. */
export function cleanText(
  s: z.ZodString,
  { what = 'a text', keep = false, ...rule }: CleanTextOptions = {},
): z.ZodString {
  const lines = rule.multiline && !keep ? s.overwrite((v) => v.replace(/\r\n?/g, '\n')) : s
  const checked = lines.superRefine((v, ctx) => {
    const p = textProblem(v, rule)
    if (p) ctx.addIssue({ code: 'custom', message: describeTextProblem(p, what), params: { [TEXT_PARAM]: p } })
  })
  return keep ? checked : checked.normalize('NFC')
}

/** The text problem an issue carries (cleanText's), or null. */
export function issueTextProblem(issue: z.core.$ZodIssue): TextProblem | null {
  if (issue.code !== 'custom') return null
  const p = (issue.params as Record<string, unknown> | undefined)?.[TEXT_PARAM]
  return p && typeof p === 'object' ? (p as TextProblem) : null
}
