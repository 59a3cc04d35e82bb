/** A calendar day as the contract takes it (YYYY-MM-DD, a day that exists), for every channel's schema. */
import { z } from 'zod'
import { isoDayProblem, ISO_DAY_SHAPE } from './dates'

export const isoDay = z
  .string()
  .regex(ISO_DAY_SHAPE, 'must be a date YYYY-MM-DD')
  .refine((v) => isoDayProblem(v) !== 'nonexistent', {
    error: (issue) => `${String(issue.input)} is not a day of the calendar`,
  })
