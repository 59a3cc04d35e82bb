import type { Messages } from './fr'

/** The header's search and the keyboard shortcuts. */
const search: Messages['search'] = {
  landmark: 'Search',
  label: 'Search {kinds}',
  placeholder: 'Search…',
  hint: 'Ctrl K',
  results: 'Search results',
  count:
    '{n} result: up and down arrows to choose it, Enter to open it. | {n} results: up and down arrows to choose, Enter to open.',
  none: 'No result for “{text}”. Searched: {kinds}.',
  serialProblem: 'Serial: {detail}',
  morePlayers: '{n} more player starts with “{text}”: type more. | {n} more players start with “{text}”: type more.',
  what: {
    ticket: 'a serial',
    player: 'a player',
    claim: 'a payment reference',
    emission: 'an emission',
  },
  searched: {
    ticket: 'serial',
    player: 'player id',
    claim: 'payment reference',
    emission: 'emission (number or code)',
  },
  kind: { ticket: 'Ticket', player: 'Player', claim: 'Claim', emission: 'Emission' },
  detail: {
    ticket: 'Open in the ticket inspector',
    claim: 'Paid with reference {reference}',
    player: '{n} unit bought | {n} units bought',
  },
  shortcuts: {
    title: 'Keyboard shortcuts',
    button: 'Keyboard shortcuts (?)',
    or: 'or',
    where: {
      everywhere: 'Everywhere',
      search: 'In the search',
      forms: 'In forms',
      replay: 'In a game’s replay (the replay having the focus)',
    },
    does: {
      search: 'Go to the search',
      searchOutside: 'Go to the search (outside a text field)',
      shortcuts: 'Show these shortcuts (outside a text field)',
      tab: 'Move to the next, previous control',
      close: 'Close a dialog or a list',
      choose: 'Move through the results',
      open: 'Open the result chosen, or the only one found',
      leave: 'Close the list, then leave the search',
      submit: 'Send the form (from a one-line field)',
      submitText: 'Send the form from a text area',
      play: 'Play or pause',
      stepForward: 'Next reveal',
      stepBack: 'Previous reveal',
      restart: 'Start again from the beginning',
    },
    keys: {
      ctrl: 'Ctrl',
      meta: '⌘',
      shift: 'Shift',
      enter: 'Enter',
      escape: 'Esc',
      space: 'Space',
      home: 'Home',
      tab: 'Tab',
      up: '↑',
      down: '↓',
      left: '←',
      right: '→',
    },
  },
}

export default search
