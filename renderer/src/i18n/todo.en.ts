import type { Messages } from './fr'

/** The to-do list, screens kept current and desktop notifications. */
const todo: Messages['todo'] = {
  menu: 'To do',
  title: 'To do',
  intro: 'What awaits you, for your role, as the ledger shows it now.',
  badge: '{n} task to do | {n} tasks to do',
  none: 'Nothing awaits you.',
  more: 'More claims wait beyond the {n} oldest looked at.',
  open: 'Open',
  kind: {
    'claim-verify': 'Verify the winner’s identity',
    'claim-approve': 'Approve the claim',
    'claim-sign-off': 'Sign off the claim (related party)',
    'claim-pay': 'Record the payment',
    'claim-deadline': 'Claim near its deadline',
    'ceremony-commit': 'Bring the key ceremony’s second share',
    'ceremony-reveal': 'Reveal your share of the key ceremony',
    'import-refused': 'Fix a refused import',
  },
  group: {
    claims: 'Claims',
    ceremonies: 'Key ceremonies',
    imports: 'Sales imports',
  },
  claim: 'Unit {serial} · {prize}',
  daysLeft: 'deadline in {n} day | deadline in {n} days',
  ceremonyOf: 'Emission {emission}',
  openedBy: 'opened by {name}',
  committedBy: 'committed by {name}',
  importOf: '{file} refused',
  unnamedFile: 'A file',
  since: 'since {when}',
  notify: {
    label: 'Tell me on the desktop when one of my long tasks ends',
    hint: 'A system notification, only when this window is not in front.',
    denied: 'Notifications are blocked for this app: allow them in the browser or the system.',
    unsupported: 'This browser does not offer desktop notifications.',
    title: '500 000 CARATS',
  },
  session: {
    roleChanged: 'Your role changed: {role}. The menus and rights follow.',
    ended: 'Your session ended: sign in again.',
  },
}

export default todo
