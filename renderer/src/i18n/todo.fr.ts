/** La liste des tâches, les écrans tenus à jour et les notifications du bureau. */
const todo = {
  menu: 'À faire',
  title: 'À faire',
  intro: 'Ce qui vous attend, selon votre rôle, tel que le registre le montre maintenant.',
  badge: '{n} tâche à faire | {n} tâches à faire',
  none: 'Rien ne vous attend.',
  more: 'D’autres réclamations attendent au-delà des {n} plus anciennes regardées.',
  open: 'Ouvrir',
  kind: {
    'claim-verify': 'Vérifier l’identité du gagnant',
    'claim-approve': 'Approuver la réclamation',
    'claim-sign-off': 'Viser la réclamation (partie liée)',
    'claim-pay': 'Enregistrer le paiement',
    'claim-deadline': 'Réclamation proche de son échéance',
    'ceremony-commit': 'Apporter la seconde part de la cérémonie des clés',
    'ceremony-reveal': 'Révéler votre part de la cérémonie des clés',
    'import-refused': 'Corriger un import refusé',
  },
  group: {
    claims: 'Réclamations',
    ceremonies: 'Cérémonies des clés',
    imports: 'Imports de ventes',
  },
  claim: 'Unité {serial} · {prize}',
  daysLeft: 'échéance dans {n} jour | échéance dans {n} jours',
  ceremonyOf: 'Émission {emission}',
  openedBy: 'ouverte par {name}',
  committedBy: 'engagement de {name}',
  importOf: '{file} refusé',
  unnamedFile: 'Un fichier',
  since: 'depuis le {when}',
  notify: {
    label: 'Me prévenir sur le bureau quand une de mes tâches longues se termine',
    hint: 'Une notification du système, seulement quand cette fenêtre n’est pas au premier plan.',
    denied: 'Les notifications sont bloquées pour cette application : autorisez-les dans le navigateur ou le système.',
    unsupported: 'Ce navigateur ne permet pas les notifications du bureau.',
    title: '500 000 CARATS',
  },
  session: {
    roleChanged: 'Votre rôle a changé : {role}. Les menus et les droits suivent.',
    ended: 'Votre session a pris fin : reconnectez-vous.',
  },
}

export default todo
