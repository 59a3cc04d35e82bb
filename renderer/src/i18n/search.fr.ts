/** La recherche de l’en-tête et les raccourcis clavier. */
const search = {
  landmark: 'Recherche',
  label: 'Rechercher {kinds}',
  placeholder: 'Rechercher…',
  hint: 'Ctrl K',
  results: 'Résultats de la recherche',
  count:
    '{n} résultat : flèches haut et bas pour le choisir, Entrée pour l’ouvrir. | {n} résultats : flèches haut et bas pour choisir, Entrée pour ouvrir.',
  none: 'Aucun résultat pour « {text} ». Cherché : {kinds}.',
  serialProblem: 'Numéro de série : {detail}',
  morePlayers:
    '{n} autre joueur commence par « {text} » : précisez. | {n} autres joueurs commencent par « {text} » : précisez.',
  /** Ce que la recherche trouve, dans son nom accessible : « Rechercher un numéro de série, … ». */
  what: {
    ticket: 'un numéro de série',
    player: 'un joueur',
    claim: 'une référence de paiement',
    emission: 'une émission',
  },
  /** Ce qui a été cherché, quand rien ne correspond. */
  searched: {
    ticket: 'numéro de série',
    player: 'identifiant de joueur',
    claim: 'référence de paiement',
    emission: 'émission (numéro ou code)',
  },
  kind: { ticket: 'Ticket', player: 'Joueur', claim: 'Réclamation', emission: 'Émission' },
  detail: {
    ticket: 'Ouvrir dans l’inspecteur de tickets',
    claim: 'Payée avec la référence {reference}',
    player: '{n} unité achetée | {n} unités achetées',
  },
  shortcuts: {
    title: 'Raccourcis clavier',
    button: 'Raccourcis clavier (?)',
    or: 'ou',
    where: {
      everywhere: 'Partout',
      search: 'Dans la recherche',
      forms: 'Dans les formulaires',
      replay: 'Dans le rejeu d’une partie (le rejeu ayant le focus)',
    },
    does: {
      search: 'Aller à la recherche',
      searchOutside: 'Aller à la recherche (hors d’un champ de saisie)',
      shortcuts: 'Afficher ces raccourcis (hors d’un champ de saisie)',
      tab: 'Passer à la commande suivante, précédente',
      close: 'Fermer une fenêtre de dialogue ou une liste',
      choose: 'Parcourir les résultats',
      open: 'Ouvrir le résultat choisi, ou le seul trouvé',
      leave: 'Fermer la liste, puis quitter la recherche',
      submit: 'Envoyer le formulaire (depuis un champ d’une ligne)',
      submitText: 'Envoyer le formulaire depuis une zone de texte',
      play: 'Lecture ou pause',
      stepForward: 'Découverte suivante',
      stepBack: 'Découverte précédente',
      restart: 'Reprendre depuis le début',
    },
    keys: {
      ctrl: 'Ctrl',
      meta: '⌘',
      shift: 'Maj',
      enter: 'Entrée',
      escape: 'Échap',
      space: 'Espace',
      home: 'Début',
      tab: 'Tab',
      up: '↑',
      down: '↓',
      left: '←',
      right: '→',
    },
  },
}

export default search
