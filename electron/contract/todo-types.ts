/**
 * The to-do list (services/todo): the open tasks of the signed-in person, worked
 * out from the ledger for their role, each with what it is about so that the screen links to it.
 */
export const TODO_KINDS = [
  'claim-verify',
  'claim-approve',
  'claim-sign-off',
  'claim-pay',
  'claim-deadline',
  'ceremony-commit',
  'ceremony-reveal',
  'import-refused',
] as const
export type TodoKind = (typeof TODO_KINDS)[number]

export interface TodoTask {
  kind: TodoKind
  /** A claim's serial, an emission's number, a refused import's audit entry: what the task is about (and its link). */
  subject: string
  emission: number | null
  /** Since when the task waits: the sale, the ceremony's opening or commitment, the refusal (ISO time). */
  since: string | null
  /** A claim's prize, in cents. */
  prizeCents: number | null
  /** Whole days left before a claim's deadline, when within 30 (null: no deadline near). */
  daysLeft: number | null
  /** A refused import's file name, or who opened a ceremony / committed to its share. */
  detail: string | null
}

export interface TodoList {
  tasks: TodoTask[]
  /** How many tasks (the menu's count); `more`: there are more claims than were looked at. */
  count: number
  more: boolean
}
