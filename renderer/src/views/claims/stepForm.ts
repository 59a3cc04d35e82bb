/**
 * The fields of a claim's step forms (ClaimStepModal.vue), what each is missing before anything
 * is sent, and a refusal of the server said beside the field it concerns.
 */
import type { ErrorReason } from '../../../../electron/contract'
import { isIsoDay } from '../../../../electron/contract/dates'
import type { IdentityDocument, PaymentMethod } from '../../../../electron/contract/claims-types'
import type { ClaimAction } from './claimActions'

export interface StepForm {
  document: IdentityDocument
  reference: string
  /** The winner's name and date of birth (YYYY-MM-DD) as on the document. */
  name: string
  birthDate: string | null
  method: PaymentMethod | null
  payment: string
  /** The staff account the claim is given to. */
  assignee: string
  reason: string
}

export const emptyStepForm = (): StepForm => ({
  document: 'id-card',
  reference: '',
  name: '',
  birthDate: null,
  method: null,
  payment: '',
  assignee: '',
  reason: '',
})

/** The least the contract takes (claims:verify, claims:pay, claims:reject), said beside the field before anything is sent. */
export const STEP_MIN = { document: 4, name: 2, payment: 3, reason: 3 }

/** A field whose value the server refused: said under it until the value is changed. */
export type RefusedField = 'payment' | 'birthDate' | 'assignee'
export interface Refusal {
  field: RefusedField
  /** The value refused, as it was sent. */
  value: string
  key: string
  params: Record<string, string>
}

/** The reasons said beside their field instead of as a message: the field, and the message key under claims.forms. */
const BESIDE: Record<string, { field: RefusedField; key: string }> = {
  PAYMENT_REF_USED: { field: 'payment', key: 'referenceUsed' },
  CLAIM_MINOR: { field: 'birthDate', key: 'minor' },
  CLAIM_ASSIGNEE: { field: 'assignee', key: 'assigneeRefused' },
}

/** The refusal said beside a field, or null for any other reason (said as a message). */
export function refusalOf(reason: ErrorReason | undefined, form: StepForm): Refusal | null {
  const beside = reason ? BESIDE[reason.key] : undefined
  if (!reason || !beside) return null
  const params = Object.fromEntries(Object.entries(reason.params).map(([k, v]) => [k, String(v)]))
  return { field: beside.field, value: fieldValue(form, beside.field), key: beside.key, params }
}

function fieldValue(form: StepForm, field: RefusedField): string {
  if (field === 'birthDate') return form.birthDate ?? ''
  return form[field].trim()
}

const short = (text: string, min: number) => text.trim().length < min

/** What a field lacks (a message key under claims.forms with its parameters), or null: shown once the field is typed in. */
export type FieldProblems = Record<
  'reference' | 'name' | 'birthDate' | 'payment' | 'assignee' | 'reason',
  string | null
>

export function stepProblems(form: StepForm, refusal: Refusal | null, today: string): FieldProblems {
  const refused = (field: RefusedField) =>
    refusal && refusal.field === field && refusal.value === fieldValue(form, field) ? refusal.key : null
  return {
    reference: form.reference && short(form.reference, STEP_MIN.document) ? 'referenceTooShort' : null,
    name: form.name && short(form.name, STEP_MIN.name) ? 'nameTooShort' : null,
    birthDate:
      refused('birthDate') ??
      (form.birthDate && (!isIsoDay(form.birthDate) || form.birthDate > today) ? 'birthDateInvalid' : null),
    payment:
      refused('payment') ?? (form.payment && short(form.payment, STEP_MIN.payment) ? 'payReferenceTooShort' : null),
    assignee: refused('assignee'),
    reason: form.reason && short(form.reason, STEP_MIN.reason) ? 'reasonTooShort' : null,
  }
}

/** Whether the step's form may be sent: every field it asks filled, none with a problem. */
export function stepValid(step: ClaimAction, form: StepForm, problems: FieldProblems): boolean {
  switch (step) {
    case 'verify':
      return (
        !short(form.reference, STEP_MIN.document) &&
        !short(form.name, STEP_MIN.name) &&
        !!form.birthDate &&
        !problems.birthDate
      )
    case 'pay':
      return !short(form.payment, STEP_MIN.payment) && form.method !== null && !problems.payment
    case 'assign':
      return form.assignee.trim().length > 0 && !problems.assignee
    case 'reject':
      return !short(form.reason, STEP_MIN.reason)
    default:
      return true
  }
}

/** A day in the user's time zone as YYYY-MM-DD (the latest date of birth the form takes). */
export function localDay(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`
}
